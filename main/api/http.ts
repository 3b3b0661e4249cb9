// Must come before got: see the module.
import { restoreListFormat } from './list-format-on-first-use.js';
import got, {
  type CancelableRequest,
  type Got,
  type Method,
  type OptionsInit,
  type Progress,
  type RequestError,
  type Response,
  type RetryObject,
} from 'got';
import {
  AbortedError,
  BadResponseError,
  ConflictError,
  ForbiddenError,
  InvalidError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
  type ApiError,
} from './errors.js';
import { describeMismatch } from './mismatch.js';
import type { WireCheck } from './wire-check.js';
import { BandwidthLimit, type BandwidthSettings } from './bandwidth.js';
import { VERSION } from './version.js';

restoreListFormat();

export interface RetryPolicy {
  /** Attempts after the first, for idempotent methods only. */
  limit: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the call fails as rate-limited instead. */
  maxRetryAfterMs: number;
}

/**
 * How long the client waits, in milliseconds. A metadata call (JSON, listings) has one overall deadline, `request`;
 * a transfer, which may rightly take hours, has none and fails only when no byte has moved for `stall`.
 */
export interface Timeouts {
  /** Per attempt, until the connection is up (never longer than `request` for a metadata call). */
  connect: number;
  /** Per attempt of a metadata call, until the answer's headers; a timed-out attempt may be retried within `request`. */
  response: number;
  /**
   * Overall deadline of a metadata call: connecting, the headers and the whole body, across every retry and every
   * wait between retries. A call never takes longer than this, so this is also its worst case.
   */
  request: number;
  /**
   * A transfer fails when no byte has moved either way for this long: the connection idle mid-body, a server that
   * stops reading an upload, or one that took the whole upload and does not answer.
   */
  stall: number;
}

export interface RetryEvent {
  endpoint: string;
  attempt: number;
  delayMs: number;
  reason: string;
}

export interface HttpOptions {
  /** Origin of the service, e.g. `https://drive.example.com`; the API lives under `/api/v1`. */
  origin: string;
  token?: string | (() => string | undefined);
  timeouts?: Partial<Timeouts>;
  retry?: Partial<RetryPolicy>;
  /** Waits between retries; injected so tests can use a virtual clock. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Largest JSON answer accepted. */
  maxResponseBytes?: number;
  onRetry?: (event: RetryEvent) => void;
  /** Upload and download rate limits shared by every transfer of this client. */
  bandwidth?: BandwidthSettings;
}

export const DEFAULT_TIMEOUTS: Timeouts = { connect: 10_000, response: 30_000, request: 60_000, stall: 60_000 };
export const DEFAULT_RETRY: RetryPolicy = { limit: 4, baseDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterMs: 300_000 };
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
const RETRY_STATUS = [408, 429, 500, 502, 503, 504, 521, 522, 524];

export interface JsonRequest<T> {
  endpoint: string;
  method: Method;
  /** Relative to `/api/v1/`, without a leading slash. */
  path: string;
  /** What a successful answer must look like (main/api/checks.ts). */
  check: WireCheck<T>;
  json?: unknown;
  searchParams?: Record<string, string | number | boolean | undefined>;
  body?: OptionsInit['body'];
  /** Extra request headers (e.g. the content type of a hand-made multipart body). */
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /**
   * Overrides the call's overall deadline (Timeouts.request); null makes it a transfer (an upload): no deadline, but
   * it fails when no byte has moved for Timeouts.stall.
   */
  requestTimeout?: number | null;
  onUploadProgress?: (progress: Progress) => void;
  /** Statuses that answer a result rather than an error (e.g. 404 for "no link"). */
  accept?: readonly number[];
}

export interface JsonAnswer<T> {
  status: number;
  body: T;
}

const sleepReal = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function firstMessage(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(firstMessage).find((m) => m !== undefined);
  return undefined;
}

/** 422 bodies carry `errors` as field → string or field → list of strings; either becomes field → string. */
function fieldMessages(body: unknown): Record<string, string> {
  const errors = (body as { errors?: unknown } | null)?.errors;
  const out: Record<string, string> = {};
  if (errors && typeof errors === 'object' && !Array.isArray(errors)) {
    for (const [field, value] of Object.entries(errors)) {
      const message = firstMessage(value);
      if (message !== undefined) out[field] = message.slice(0, 500);
    }
  }
  return out;
}

/** The first non-empty line of a text, trimmed and capped: what a person reads in an error's message. */
function oneLine(text: string, max = 300): string | undefined {
  const line = text.split(/[\r\n]+/).map((l) => l.trim()).find((l) => l !== '');
  return line === undefined ? undefined : line.slice(0, max);
}

function bodyMessage(body: unknown): string | undefined {
  const message = (body as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? oneLine(message) : undefined;
}

/** A duration as a person reads it: `60 s`, `1.5 s`, `250 ms`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 100) / 10;
  return `${s} s`;
}

/** What a call that met its overall deadline says. */
export const deadlineMessage = (ms: number) => `the server did not answer within ${duration(ms)}`;

/** What a transfer that stalled says. */
export const stallMessage = (ms: number) => `no data moved for ${duration(ms)}`;

/** got's timeout, by the phase that ran out, in words: connecting, waiting for an answer, or nothing moving. */
const timeoutEvent = (error: { event?: string; message?: string }): string | undefined =>
  error.event ?? /Timeout awaiting '(\w+)'/.exec(error.message ?? '')?.[1];

function timeoutMessage(error: { event?: string; message?: string }): string {
  const text = error.message ?? '';
  const event = timeoutEvent(error);
  const threshold = /for (\d+)ms/.exec(text)?.[1];
  if (threshold === undefined) return 'timed out';
  const ms = Number(threshold);
  if (event === 'connect' || event === 'lookup' || event === 'secureConnect') return `could not connect within ${duration(ms)}`;
  if (event === 'socket' || event === 'read') return stallMessage(ms);
  return deadlineMessage(ms);
}

export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return undefined;
  const seconds = Number(text);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Turns any failure of got into the typed error of its kind. */
export function toApiError(endpoint: string, error: unknown, signal?: AbortSignal): ApiError {
  const e = error as RequestError & { response?: { statusCode: number; body?: unknown; headers: Record<string, string | string[] | undefined> } };
  if (signal?.aborted || e?.name === 'AbortError' || e?.name === 'CancelError') {
    return new AbortedError(endpoint, 'the request was cancelled');
  }
  if (e?.response && e.name === 'HTTPError') {
    const status = e.response.statusCode;
    let body: unknown = e.response.body;
    if (typeof body === 'string') {
      try {
        body = JSON.parse(body);
      } catch {
        // not JSON; the status alone says what happened
      }
    }
    const message = bodyMessage(body);
    if (status === 401) return new UnauthorizedError(endpoint, message ?? 'not signed in, or the session expired', status);
    const fieldMessage = (fields: Record<string, string>) =>
      Object.values(fields).map((m) => oneLine(m)).find((m) => m !== undefined);
    if (status === 403) {
      const fields = fieldMessages(body);
      // Older list deployments answer validation failures with 403 and field messages.
      if (Object.keys(fields).length > 0) return new InvalidError(endpoint, message ?? fieldMessage(fields) ?? 'invalid data', fields, status);
      return new ForbiddenError(endpoint, message ?? 'not allowed', status);
    }
    if (status === 404) return new NotFoundError(endpoint, message ?? 'not found', status);
    if (status === 409) return new ConflictError(endpoint, message ?? 'conflict', status);
    if (status === 429) {
      return new RateLimitedError(endpoint, message ?? 'too many requests', parseRetryAfter(e.response.headers['retry-after']));
    }
    if (status >= 500) return new ServerError(endpoint, message ? `server error ${status}: ${message}` : `server error ${status}`, status);
    const fields = fieldMessages(body);
    return new InvalidError(endpoint, message ?? fieldMessage(fields) ?? `rejected with status ${status}`, fields, status);
  }
  if (e?.name === 'TimeoutError' || e?.code === 'ETIMEDOUT') {
    const timeout = e as { event?: string; message?: string };
    return new TimeoutError(endpoint, timeoutMessage(timeout), timeoutEvent(timeout));
  }
  if (e?.name === 'ParseError') return new BadResponseError(endpoint, 'the answer is not valid JSON', e.response?.statusCode);
  const code = e?.code;
  const reason = code === 'ECONNREFUSED' ? 'connection refused' : code === 'ENOTFOUND' ? 'host not found' : e?.message || 'network error';
  return new NetworkError(endpoint, reason.split('\n')[0]!, code, { cause: error });
}

/**
 * The one HTTP client of an account: base URL, bearer token, timeouts per phase, user agent, and retries with
 * exponential backoff and full jitter for idempotent methods (POST is never retried here).
 */
/** A JSON call's request line and headers (the token among them), about. */
const REQUEST_BYTES = 400;

export class Http {
  readonly origin: string;
  readonly api: Got;
  /** Same settings, for absolute URLs (a file's content). */
  readonly raw: Got;
  private readonly maxResponseBytes: number;
  readonly timeouts: Timeouts;
  readonly bandwidth: BandwidthLimit;
  /**
   * Bytes the JSON calls moved so far: each answer's body and headers, and about what its request took (what an idle
   * engine counts against its traffic budget, as the network sees it rather than as the parsed entries are).
   */
  jsonBytes = 0;

  constructor(options: HttpOptions) {
    const origin = new URL(options.origin);
    if (origin.protocol !== 'http:' && origin.protocol !== 'https:') {
      throw new Error(`the server address must start with http:// or https:// (got ${options.origin})`);
    }
    this.origin = origin.origin;
    const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    // Node fires a timer longer than 2^31 - 1 ms at once, which would turn a long deadline into none at all.
    for (const key of Object.keys(timeouts) as Array<keyof Timeouts>) timeouts[key] = Math.min(timeouts[key], 2 ** 31 - 1);
    this.timeouts = timeouts;
    this.bandwidth = new BandwidthLimit(options.bandwidth);
    const retry = { ...DEFAULT_RETRY, ...options.retry };
    const sleep = options.sleep ?? sleepReal;
    const random = options.random ?? Math.random;
    this.maxResponseBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
    const token = options.token;
    const tokenOf = typeof token === 'function' ? token : () => token;

    const calculateDelay = async ({ attemptCount, computedValue, retryAfter, error }: RetryObject): Promise<number> => {
      // got's own rules say whether a retry is allowed at all (method, status, code, limit, Retry-After cap).
      if (computedValue === 0) return 0;
      const backoff = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attemptCount - 1));
      const delay = retryAfter !== undefined ? retryAfter : Math.round(random() * backoff);
      const request = error.options;
      // A wait that would end past the call's deadline is not started: the failure at hand says more than a timeout.
      const deadlineAt = (request.context as { deadlineAt?: number } | undefined)?.deadlineAt;
      if (deadlineAt !== undefined && Date.now() + delay >= deadlineAt) return 0;
      options.onRetry?.({
        endpoint: `${request.method} ${(request.url as URL | undefined)?.pathname ?? ''}`,
        attempt: attemptCount,
        delayMs: delay,
        reason: error.response ? `status ${error.response.statusCode}` : error.code ?? error.name,
      });
      await sleep(delay);
      return 1; // the wait already happened through the injected clock
    };

    this.raw = got.extend({
      headers: { 'user-agent': `drivesync/${VERSION}`, accept: 'application/json' },
      timeout: { connect: this.timeouts.connect, response: this.timeouts.stall, socket: this.timeouts.stall },
      retry: {
        limit: retry.limit,
        methods: ['GET', 'PUT', 'HEAD', 'DELETE', 'OPTIONS'],
        statusCodes: RETRY_STATUS,
        maxRetryAfter: retry.maxRetryAfterMs,
        calculateDelay,
      },
      hooks: {
        beforeRequest: [
          (request) => {
            // This hook runs again for every redirect, after got dropped the header for another origin: the token
            // goes to the service's own origin only, never to wherever a redirect points.
            const url = request.url instanceof URL ? request.url : new URL(String(request.url));
            if (url.origin !== this.origin) {
              delete request.headers.authorization;
              return;
            }
            const value = tokenOf();
            if (value) request.headers.authorization = `Bearer ${value}`;
          },
        ],
      },
    });
    this.api = this.raw.extend({ prefixUrl: `${this.origin}/api/v1/` });
  }

  /** Absolute URL of a path the service gives relative to its origin (e.g. a file's `url`). */
  resolve(relative: string, endpoint = 'GET /file-entries/{entryId}'): string {
    const url = new URL(relative.replace(/^\/+/, ''), `${this.origin}/`);
    if (url.origin !== this.origin) {
      throw new BadResponseError(endpoint, `the url ${oneLine(relative, 200) ?? ''} points off the server`);
    }
    return url.href;
  }

  async json<T>(request: JsonRequest<T>): Promise<JsonAnswer<T>> {
    const deadlineMs = request.requestTimeout === null ? null : request.requestTimeout ?? this.timeouts.request;
    if (deadlineMs === null) return this.attemptJson(request, request.signal, undefined);
    // One timer for the whole call, retries and the waits between them included: got's own request timeout starts
    // again with every attempt, so five attempts could take five deadlines.
    // The signal got sees is this call's own, so nothing is left listening on a long-lived caller's signal.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(deadlineMessage(deadlineMs)));
    }, deadlineMs);
    const forward = () => controller.abort(request.signal?.reason);
    if (request.signal?.aborted) forward();
    request.signal?.addEventListener('abort', forward, { once: true });
    try {
      return await this.attemptJson(request, controller.signal, Date.now() + deadlineMs);
    } catch (error) {
      if (timedOut && !request.signal?.aborted) throw new TimeoutError(request.endpoint, deadlineMessage(deadlineMs));
      throw error;
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', forward);
    }
  }

  private async attemptJson<T>(
    request: JsonRequest<T>,
    signal: AbortSignal | undefined,
    deadlineAt: number | undefined,
  ): Promise<JsonAnswer<T>> {
    const { endpoint } = request;
    let tooLarge = false;
    const searchParams: Record<string, string | number | boolean> = {};
    for (const [key, value] of Object.entries(request.searchParams ?? {})) if (value !== undefined) searchParams[key] = value;
    const left = deadlineAt === undefined ? Infinity : Math.max(1, deadlineAt - Date.now());
    const promise = this.api(request.path, {
      method: request.method,
      json: request.json,
      body: request.body,
      ...(request.headers ? { headers: request.headers } : {}),
      searchParams,
      signal,
      responseType: 'text',
      context: { deadlineAt },
      timeout:
        deadlineAt === undefined
          ? { connect: this.timeouts.connect, response: this.timeouts.stall, socket: this.timeouts.stall }
          : { connect: Math.min(this.timeouts.connect, left), response: Math.min(this.timeouts.response, left), socket: undefined },
    } as OptionsInit) as CancelableRequest<Response<string>>;
    promise.on('downloadProgress', (progress: Progress) => {
      if (progress.transferred > this.maxResponseBytes) {
        tooLarge = true;
        promise.cancel();
      }
    });
    if (request.onUploadProgress) promise.on('uploadProgress', request.onUploadProgress);
    let status: number;
    let text: string;
    try {
      const response = await promise;
      status = response.statusCode;
      text = response.body as string;
      this.jsonBytes += REQUEST_BYTES + Buffer.byteLength(text) + response.rawHeaders.reduce((n, h) => n + h.length + 2, 0);
    } catch (error) {
      if (tooLarge) throw new BadResponseError(endpoint, `the answer is larger than ${this.maxResponseBytes} bytes`);
      const answer = (error as { name?: string; response?: { statusCode: number; body: unknown } }).response;
      if (!(answer && (request.accept ?? []).includes(answer.statusCode))) throw toApiError(endpoint, error, request.signal);
      // An accepted error status is a result: its body is whatever the server said.
      let parsed: unknown;
      try {
        parsed = JSON.parse(String(answer.body));
      } catch {
        parsed = undefined;
      }
      return { status: answer.statusCode, body: parsed as T };
    }
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw new BadResponseError(endpoint, `the answer is not valid JSON (status ${status})`, status);
    }
    if (!request.check.test(body)) throw new BadResponseError(endpoint, `unexpected answer: ${await describeMismatch(request.check, body)}`, status);
    return { status, body };
  }
}
