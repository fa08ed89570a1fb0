/**
 * `--filter <JSON>` of `webhooks:add`, `webhooks:update` and `webhooks:filter-test`. The console's
 * empty filter box means "no filter", but on the command line a blank value is most often an unset
 * shell variable (`--filter "$FILTER"`): read as no filter it would register an endpoint that
 * receives every event it subscribes to. So a blank `--filter` goes to the core as it is, which
 * refuses it as not a JSON object; no filter is said with `--no-filter` or `--filter null`.
 */
import { parseFilterText } from '../../shared/webhooks/text-input.ts';

/** The filter `--filter` gives: parsed JSON (422 when it is not), or the blank text itself for the core to refuse. */
export const filterOf = (text: string): unknown => (text.trim() === '' ? text : parseFilterText(text));
