/**
 * The SDL of a list query's answer type (what access.ts `pageAnswer` returns): the page's nodes,
 * its number and size, the total, the number of pages and the deepest page the listing answers
 * (api.maxPageOffset); with `estimated`, also whether the total is PostgreSQL's estimate
 * (listings whose total is bounded, api.exactTotal).
 */
export function pageTypeSdl(name: string, node: string, { estimated = false } = {}): string {
  const fields = [
    `nodes: [${node}!]!`,
    'page: Int!',
    'perPage: Int!',
    'total: Int!',
    'pages: Int!',
    `"The deepest page this listing answers at this perPage (api.maxPageOffset): a page past it is refused (APP_PAGE_TOO_DEEP); narrow the listing with its filter instead, where it has one."\n    deepestPage: Int!`,
  ];
  if (estimated) {
    fields.push(
      `"total is PostgreSQL's estimate: it expects more matches than api.exactTotal."\n    totalEstimated: Boolean!`,
    );
  }
  return `type ${name} {\n    ${fields.join('\n    ')}\n  }`;
}
