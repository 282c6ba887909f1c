// A free TCP port on 127.0.0.1, chosen by the kernel (listen on 0, read it, close): for the
// servers tests start themselves (the web server, PgBouncer, a primary and its replica).
import net from 'node:net';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
