/**
 * The type of the resolved configuration, derived from the schema table (shared/config/schema.ts)
 * so that a key added there is typed everywhere at once: durations in milliseconds, sizes in
 * bytes, enums as their values, nullable leaves with `| null`, a disableable group as
 * `false | {...}`, a map as a record of its entries; everything read-only (the object is frozen).
 */
import type { LeafType, SCHEMA } from './schema.ts';

type LeafValue<T extends LeafType> = T extends 'string'
  ? string
  : T extends 'integer' | 'number' | 'duration' | 'size'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'string[]'
        ? readonly string[]
        : T extends 'object'
          ? Readonly<Record<string, unknown>>
          : never;

/** One entry of a `map`: its fields that are not nullable are required, the others optional (never null). */
type EntryConfig<E> = {
  readonly [K in keyof E as E[K] extends { nullable: true } ? never : K]: LeafConfig<E[K]>;
} & {
  readonly [K in keyof E as E[K] extends { nullable: true } ? K : never]?: LeafConfig<E[K]>;
};
type Flat<T> = { [K in keyof T]: T[K] };

type LeafConfig<L> = L extends { type: 'map'; entry: infer E }
  ? Readonly<Record<string, Flat<EntryConfig<E>>>>
  : L extends { type: 'enum'; values: readonly (infer V)[] }
    ? V
    : L extends { type: infer T extends LeafType }
      ? LeafValue<T>
      : never;

type NodeConfig<N> = N extends { kind: 'group'; children: infer C }
  ? N extends { disableable: true }
    ? false | GroupConfig<C>
    : GroupConfig<C>
  : N extends { nullable: true }
    ? LeafConfig<N> | null
    : N extends { allowFalse: true }
      ? LeafConfig<N> | false
      : LeafConfig<N>;

type GroupConfig<C> = { readonly [K in keyof C]: NodeConfig<C[K]> };

/** The resolved configuration. */
export type Config = GroupConfig<(typeof SCHEMA)['children']>;
