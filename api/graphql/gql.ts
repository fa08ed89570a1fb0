/**
 * The `gql` template tag (docs/graphql.md): returns the query text as written, values
 * interpolated. It does nothing else; it only lets editors recognise, highlight and format the
 * GraphQL inside.
 *
 *   const text = gql`query Endpoints { endpoints { nodes { id url } } }`;
 */
export function gql(strings: TemplateStringsArray, ...values: unknown[]): string {
  return strings.reduce((text, part, index) => text + String(values[index - 1]) + part);
}
