/**
 * Why the node could not listen, in one line: uWS only says it could not, so the address is tried
 * again with Node's own socket for the system's reason, and on Linux the process holding a port in
 * use is looked up in /proc.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';

/** The node could not listen where it was asked to; the command prints the message and exits with code 2. */
export class ListenError extends Error {
  override name = 'ListenError';
}

export async function listenFailure(host: string, port: number): Promise<ListenError> {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const code = await new Promise<string | undefined>((resolve) => {
    const probe = createServer();
    probe.once('error', (e: NodeJS.ErrnoException) => resolve(e.code));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(undefined)));
  });
  const reason =
    code === 'EADDRINUSE' || code === undefined
      ? `port ${port} is in use${holderOf(port)}`
      : code === 'EADDRNOTAVAIL'
        ? `${host} is not an address of this machine`
        : code === 'EACCES'
          ? `permission denied (ports below 1024 need privileges)`
          : code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EINVAL'
            ? `${host} is not a valid address or host name`
            : code;
  return new ListenError(`cannot listen on ${where}: ${reason}`);
}

/** ` by process PID (command line)` for the process listening on TCP `port`, where /proc tells. */
function holderOf(port: number): string {
  try {
    const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
    const inodes = new Set<string>();
    for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
      let text = '';
      try {
        text = readFileSync(table, 'utf8');
      } catch {
        continue;
      }
      for (const line of text.split('\n').slice(1)) {
        const f = line.trim().split(/\s+/);
        // local_address is ADDR:PORT; st 0A is LISTEN; the inode is the tenth field.
        if (f.length > 9 && f[1].endsWith(`:${hexPort}`) && f[3] === '0A') inodes.add(f[9]);
      }
    }
    if (inodes.size === 0) return '';
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      let fds: string[];
      try {
        fds = readdirSync(`/proc/${pid}/fd`);
      } catch {
        continue;
      }
      for (const fd of fds) {
        let link = '';
        try {
          link = readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
          continue;
        }
        const m = /^socket:\[(\d+)\]$/.exec(link);
        if (m !== null && inodes.has(m[1])) {
          const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
          return ` by process ${pid}${cmd === '' ? '' : ` (${cmd.length > 120 ? `${cmd.slice(0, 117)}...` : cmd})`}`;
        }
      }
    }
  } catch {
    // Best effort: no /proc, or no right to read it.
  }
  return '';
}
