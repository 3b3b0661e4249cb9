import { startServer, type RunningServer, type ServerOptions } from '../../server/app.js';

export interface TestServer extends RunningServer {
  /** Registers an account and answers its id and token. */
  register(email: string, password?: string): Promise<{ id: number; token: string }>;
  /** A request with a bearer token; the body is JSON unless it is FormData. */
  call(token: string | null, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
}

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

/** The real reference server on a free loopback port, with its data in a fresh temp dir. */
export async function startTestServer(options: ServerOptions = {}): Promise<TestServer> {
  const running = await startServer({ port: 0, ...options });
  const call: TestServer['call'] = async (token, method, path, body, headers = {}) => {
    const init: RequestInit = { method, headers: { accept: 'application/json', ...headers } };
    if (token) (init.headers as Record<string, string>).authorization = `Bearer ${token}`;
    if (body instanceof FormData) init.body = body;
    else if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${running.url}${path}`, init);
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed, headers: response.headers };
  };
  const register: TestServer['register'] = async (email, password = 'secret-password') => {
    const answer = await call(null, 'POST', '/api/v1/auth/register', { email, password, token_name: 'test' });
    if (answer.status !== 200) throw new Error(`register ${email}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return { id: answer.body.user.id, token: answer.body.user.access_token };
  };
  return { ...running, call, register };
}

/** A multipart upload body: file content plus the document's optional parts. */
export function uploadForm(name: string, content: string | Uint8Array, fields: { parentId?: number | null; relativePath?: string } = {}): FormData {
  const form = new FormData();
  if (fields.parentId !== undefined) form.append('parentId', fields.parentId === null ? 'null' : String(fields.parentId));
  if (fields.relativePath !== undefined) form.append('relativePath', fields.relativePath);
  form.append('file', new Blob([content]), name);
  return form;
}
