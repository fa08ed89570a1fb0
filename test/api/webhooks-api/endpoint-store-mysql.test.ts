/**
 * The endpoint table in MariaDB (`adapter: mysql`), end to end from outside
 * (endpoint-store-scenario.ts): a database of this file's own, `app_test_<random hex>`, dropped at
 * the end. MariaDB that cannot be reached fails the file.
 */
import { createMariaDatabase } from '../../helpers/mariadb.ts';
import { describeStoreEndToEnd } from './endpoint-store-scenario.ts';

/** `webhooks.table`, the table's name in the store. */
const TABLE = 'app_webhooks';

describeStoreEndToEnd('mysql', async () => {
  const maria = await createMariaDatabase();
  return {
    options: { adapter: 'mysql', url: maria.url },
    atRest: () => maria.tableAsText(TABLE),
  };
});
