import { createModels, type ModelDeps, type Models } from './model.ts';
import { compileShape, type ModelShape } from './shape.ts';
import type { ModelDeclaration } from './types.ts';

/** Thrown at boot when model declarations are unusable; `problems` lists every one. */
export class ModelDeclarationError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`invalid model declarations:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ModelDeclarationError';
    this.problems = problems;
  }
}

/** Checks declarations one by one and against each other (unique names, tables, collections; `ref`s that exist). */
export function compileShapes(declarations: readonly ModelDeclaration[]): ModelShape[] {
  const problems: string[] = [];
  const shapes = declarations.map((declaration) => {
    const compiled = compileShape(declaration);
    problems.push(...compiled.problems);
    return compiled.shape;
  });
  for (const key of ['name', 'collection', 'table'] as const) {
    const seen = new Set<string>();
    for (const shape of shapes) {
      if (seen.has(shape[key])) problems.push(`two models share the ${key} "${shape[key]}"`);
      seen.add(shape[key]);
    }
  }
  const names = new Set(shapes.map((shape) => shape.name));
  for (const shape of shapes) {
    for (const field of shape.references) {
      if (field.ref !== undefined && !names.has(field.ref))
        problems.push(`model ${shape.name}, field ${field.name}: ref "${field.ref}" names no declared model`);
    }
  }
  if (problems.length > 0) throw new ModelDeclarationError(problems);
  return shapes;
}

/** The application's models over `sql`, from their declarations; throws ModelDeclarationError listing every problem. */
export function modelsFrom(deps: ModelDeps, declarations: readonly ModelDeclaration[]): Models {
  return createModels(deps, compileShapes(declarations));
}
