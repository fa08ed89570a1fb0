import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listenFailureText } from '../../../shared/log/listen-failure.ts';

const web = { what: 'web process', host: '0.0.0.0', port: 3000, portVariable: 'PORT' };
const failure = (code: string, syscall: string) => Object.assign(new Error(`${syscall} ${code}`), { code, syscall });

describe('a process that cannot listen is told why in one line, and what to change', () => {
  it('the port in use names the port and the variable that moves it', () => {
    assert.equal(
      listenFailureText(failure('EADDRINUSE', 'listen'), web),
      'web process could not start: port 3000 is in use by another process; stop it, or choose another port with PORT (for example PORT=3001)',
    );
  });

  it('a port without the right, and an address the machine lacks, each get their own reason', () => {
    assert.match(
      listenFailureText(failure('EACCES', 'listen'), { ...web, port: 80 }),
      /not allowed to listen on 0\.0\.0\.0:80; ports below 1024/,
    );
    assert.match(
      listenFailureText(failure('EADDRNOTAVAIL', 'listen'), { ...web, host: '10.255.255.1' }),
      /no address 10\.255\.255\.1; set APP_HOST/,
    );
  });

  it("a connection's failure with the same code, and any other error, keep their own message", () => {
    assert.equal(
      listenFailureText(failure('EADDRNOTAVAIL', 'connect'), web),
      'web process could not start: connect EADDRNOTAVAIL',
    );
    assert.equal(listenFailureText(new Error('boom'), web), 'web process could not start: boom');
  });
});
