import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on loopback between one computer and the server, so a test can take that computer's network away:
 * - `refuse()`: nothing listens any more, so every connection is refused (ECONNREFUSED), and the open ones are cut;
 * - `blackhole()`: connections are accepted and open ones kept, but no byte goes either way (a silent drop, as a
 *   network that went away mid-transfer: the client only learns of it from its own timeouts);
 * - `cut()`: the open connections are reset, new ones still go through;
 * - `heal()`: back to forwarding, on the same port.
 */
export interface TestProxy {
  url: string;
  port: number;
  refuse(): Promise<void>;
  blackhole(): void;
  cut(): void;
  heal(): Promise<void>;
  readonly state: 'open' | 'refusing' | 'blackhole';
  close(): Promise<void>;
}

export async function startProxy(target: string): Promise<TestProxy> {
  const { hostname, port: targetPort } = new URL(target);
  const pairs = new Set<[Socket, Socket]>();
  let state: TestProxy['state'] = 'open';

  const onConnection = (client: Socket) => {
    const upstream = connect({ host: hostname, port: Number(targetPort) });
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    // Each chunk is passed on only while the network is up; in a blackhole it is swallowed.
    client.on('data', (chunk) => {
      if (state === 'open') upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (state === 'open') client.write(chunk);
    });
  };

  let server: Server = createServer(onConnection);
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as { port: number }).port);
      });
    });
  const port = await listen(0);
  const closeListener = () => new Promise<void>((resolve) => server.close(() => resolve()));
  const cut = () => {
    for (const [a, b] of pairs) {
      a.resetAndDestroy();
      b.destroy();
    }
    pairs.clear();
  };

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get state() {
      return state;
    },
    async refuse() {
      if (state === 'refusing') return;
      state = 'refusing';
      cut();
      await closeListener();
    },
    blackhole() {
      if (state === 'refusing') throw new Error('heal the proxy before making it a blackhole');
      state = 'blackhole';
    },
    cut,
    async heal() {
      if (state === 'refusing') {
        server = createServer(onConnection);
        // The port was given back while refusing; on loopback in a test it is free again at once.
        for (let attempt = 0; ; attempt++) {
          try {
            await listen(port);
            break;
          } catch (error) {
            if (attempt >= 50) throw error;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        }
      } else if (state === 'blackhole') {
        // What the blackhole swallowed broke those connections: their requests and answers are gone.
        cut();
      }
      state = 'open';
    },
    async close() {
      cut();
      if (state !== 'refusing') await closeListener();
      state = 'refusing';
    },
  };
}
