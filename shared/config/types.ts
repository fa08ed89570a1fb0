/**
 * The type of the resolved configuration, derived from the schema table (shared/config/schema.ts)
 * so that a key added there is typed everywhere at once: durations in milliseconds, sizes in
 * bytes, enums as their values, nullable leaves with `| null`, a disableable group as
 * `false | {...}`; everything read-only (the object is frozen).
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

type LeafConfig<L> = L extends { type: 'enum'; values: readonly (infer V)[] }
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
