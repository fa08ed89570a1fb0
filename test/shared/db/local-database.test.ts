/**
 * The record a running `npm start` leaves for the CLI (shared/db/local-database.ts): read only
 * while the process it names lives, its web process's URL kept only when it is an http(s) origin.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readLocalState } from '../../../shared/db/local-database.ts';

const folder = mkdtempSync(join(tmpdir(), 'app-local-state-'));
after(() => rmSync(folder, { recursive: true, force: true }));
let files = 0;
const recorded = (state: unknown) => {
  files += 1;
  const file = join(folder, `postgres-${files}.json`);
  writeFileSync(file, typeof state === 'string' ? state : JSON.stringify(state));
  return file;
};
const url = 'postgres://postgres@127.0.0.1:5432/app';

describe('the local state npm start records for the CLI', () => {
  it("answers the database, --allow-local and the web process's URL of a live npm start", () => {
    assert.deepEqual(
      readLocalState(recorded({ url, pid: process.pid, allowLocal: true, webUrl: 'http://localhost:3917' })),
      { url, pid: process.pid, allowLocal: true, webUrl: 'http://localhost:3917' },
    );
    assert.deepEqual(readLocalState(recorded({ url, pid: process.pid })), { url, pid: process.pid, allowLocal: false });
  });

  it('a record of a process that is gone, an unreadable one or no file at all is no record', () => {
    assert.equal(readLocalState(recorded({ url, pid: 2 ** 22 + 1 })), undefined);
    assert.equal(readLocalState(recorded('{not json')), undefined);
    assert.equal(readLocalState(recorded({ pid: process.pid })), undefined);
    assert.equal(readLocalState(join(folder, 'missing.json')), undefined);
  });

  it('a webUrl that is not an http(s) origin is left out, the rest kept', () => {
    for (const webUrl of ['javascript:alert(1)', 'http://localhost:3917/path', 42]) {
      assert.deepEqual(readLocalState(recorded({ url, pid: process.pid, webUrl })), {
        url,
        pid: process.pid,
        allowLocal: false,
      });
    }
  });
});
