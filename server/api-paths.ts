/** Every route of the two documents is under this prefix. */
export const API = '/api/v1';

/** The paths that answer without a token: signing up and in, and the public face of shareable links. */
export const isPublic = (url: string) => url.startsWith(`${API}/auth/`) || url.startsWith('/drive/s/');
