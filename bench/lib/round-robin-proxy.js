/** A round-robin HTTP proxy in front of several sandbox instances: each request goes to the next
 * upstream in turn, over a new upstream connection. Used by the cluster test and the bench. */
import http from 'node:http';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'upgrade']);

/**
 * @param {string[]} upstreams base URLs such as http://127.0.0.1:8081
 * @param {{ port?: number }} [options]
 * @returns {Promise<{ url: string, close(): Promise<void>, served: number[] }>}
 */
export async function startRoundRobinProxy(upstreams, options = {}) {
  if (upstreams.length === 0) throw new Error('startRoundRobinProxy needs at least one upstream');
  const targets = upstreams.map((u) => new URL(u));
  /** @type {number[]} */
  const served = targets.map(() => 0);
  let next = 0;

  const server = http.createServer((req, res) => {
    const index = next;
    next = (next + 1) % targets.length;
    served[index] = (served[index] ?? 0) + 1;
    const target = /** @type {URL} */ (targets[index]);
    const upstream = http.request(
      {
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host, connection: 'close' },
        agent: false,
      },
      (answer) => {
        /** @type {string[]} */
        const headers = [];
        for (let i = 0; i < answer.rawHeaders.length; i += 2) {
          const name = /** @type {string} */ (answer.rawHeaders[i]);
          if (!HOP_BY_HOP.has(name.toLowerCase())) headers.push(name, /** @type {string} */ (answer.rawHeaders[i + 1]));
        }
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      },
    );
    let connected = false;
    upstream.on('socket', (socket) => socket.once('connect', () => (connected = true)));
    upstream.on('error', (err) => {
      // Connected, then dropped (a hang-up, a dropped connection): the client sees the same.
      if (connected || res.headersSent) {
        res.destroy();
        return;
      }
      const body = JSON.stringify({ code: 502, description: `Proxy: upstream ${target.origin} failed: ${err.message}` });
      res.writeHead(502, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve(undefined));
  });
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${address.port}`,
    served,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
