/**
 * Most deliveries one page of a listing holds (the CLI's `--limit` too). A module of its own so
 * that the CLI's options can name it without loading the listing.
 */
export const MAX_LIST_LIMIT = 1000;
