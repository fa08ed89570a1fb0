/**
 * The one line the web process logs when it cannot listen: what went wrong and what to change,
 * for the failures a deployer or a first `npm start` meets (the port taken, a port below 1024
 * without the right, an address the machine does not have). Anything else keeps its own message.
 */
export function startFailureText(error: unknown, listen: { host: string; port: number }): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = `${listen.host}:${listen.port}`;
  if (code === 'EADDRINUSE')
    return `web process could not start: port ${listen.port} is in use by another process; stop it, or choose another port with PORT (for example PORT=${listen.port + 1})`;
  if (code === 'EACCES')
    return `web process could not start: not allowed to listen on ${where}; ports below 1024 need the right to bind them, choose another port with PORT`;
  if (code === 'EADDRNOTAVAIL')
    return `web process could not start: this machine has no address ${listen.host}; set APP_HOST to one it has (0.0.0.0 listens on every address)`;
  return `web process could not start: ${error instanceof Error ? error.message : String(error)}`;
}
