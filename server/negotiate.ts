/**
 * Content negotiation on the `Accept` header (the negotiator package, as Express and Koa use it): enough for the public
 * link route to tell a browser from an API client.
 */
import Negotiator from 'negotiator';

/** Offered in this order: on a tie (`*\/*`, no header, both listed alike) the first, JSON, wins. */
const OFFERED = ['application/json', 'text/html'];

/** The request's `Accept` prefers HTML (a browser) to JSON (an API client). */
export function prefersHtml(accept: string | undefined): boolean {
  return new Negotiator({ headers: accept === undefined ? {} : { accept } }).mediaType(OFFERED) === 'text/html';
}
