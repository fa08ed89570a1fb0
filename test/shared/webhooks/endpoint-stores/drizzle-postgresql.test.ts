/** The drizzle adapter on PostgreSQL: this file's own database, a table of the store's own. */
import { openStore } from '../../../../shared/webhooks/endpoint-stores/drizzle.ts';
import { createTestDatabase } from '../../../helpers/database.ts';
import { describeSmoke } from './smoke.ts';

const db = await createTestDatabase({ empty: true });

describeSmoke('drizzle (postgresql)', () =>
  openStore({
    name: 'registry',
    options: { adapter: 'drizzle', dialect: 'postgresql', url: db.url },
    table: 'drizzle_endpoints',
  }),
);
