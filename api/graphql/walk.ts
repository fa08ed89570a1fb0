/**
 * A fold over an operation's selections with fragments expanded: each fragment is measured once
 * (memoised) however often it is spread, and a fragment cycle counts as nothing (graphql-js's
 * `NoFragmentCycles` rule reports it), so measuring is linear in the document's size.
 */
import { Kind, type FieldNode, type SelectionSetNode, type ValidationContext } from 'graphql';

export interface Fold {
  /** The value of a field; `below()` measures its selection set (0 for a leaf). */
  field(node: FieldNode, below: () => number): number;
  /** The value of a selection set from the values of its selections. */
  combine(values: number[]): number;
}

export function walk(
  context: Pick<ValidationContext, 'getFragment'>,
  selectionSet: SelectionSetNode,
  fold: Fold,
): number {
  const memo = new Map<string, number>();
  const visiting = new Set<string>();
  const visit = (set: SelectionSetNode): number =>
    fold.combine(
      set.selections.map((selection) => {
        if (selection.kind === Kind.FIELD)
          return fold.field(selection, () => (selection.selectionSet ? visit(selection.selectionSet) : 0));
        if (selection.kind === Kind.INLINE_FRAGMENT) return visit(selection.selectionSet);
        const name = selection.name.value;
        const known = memo.get(name);
        if (known !== undefined) return known;
        const fragment = context.getFragment(name);
        if (!fragment || visiting.has(name)) return 0;
        visiting.add(name);
        const value = visit(fragment.selectionSet);
        visiting.delete(name);
        memo.set(name, value);
        return value;
      }),
    );
  return visit(selectionSet);
}
