/**
 * The drizzle adapter on MariaDB (or MySQL) at 127.0.0.1:3306 as root without password: a
 * database of this file's own, dropped at the end. An unreachable server fails the file.
 */
import { randomBytes } from 'node:crypto';
import { after } from 'node:test';
import { createConnection } from 'mysql2/promise';
import { openStore } from '../../../../shared/webhooks/endpoint-stores/drizzle.ts';
import { describeSmoke } from './smoke.ts';

const SERVER = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/';
const name = `app_test_${randomBytes(6).toString('hex')}`;
const admin = await createConnection({ uri: SERVER });
await admin.query(`create database \`${name}\``);
after(async () => {
  await admin.query(`drop database if exists \`${name}\``);
  await admin.end();
});
const url = new URL(SERVER);
url.pathname = `/${name}`;

describeSmoke('drizzle (mysql)', () =>
  openStore({
    name: 'registry',
    options: { adapter: 'drizzle', dialect: 'mysql', url: url.toString() },
    table: 'drizzle_endpoints',
  }),
);
