/**
 * A refused form's errors tied to its fields, for people who cannot see the red box: a control
 * an error names (its `data.field`, as the core reports it) is marked `aria-invalid` and described
 * by that error's line of the page's error summary (`error-<n>`), so a screen reader reads the
 * reason on reaching the field; and the summary's line links to the control, so a keyboard user
 * goes from the reason to the field in one step. The page's template marks its controls (it knows
 * which form was sent: two forms of one page may have fields of one name); the layout, rendered
 * after it, links the lines the template marked.
 */
import type { PageError } from './page-object.ts';

export interface FieldErrors {
  /**
   * The attributes of control `id` (written unescaped): ` aria-invalid="true"
   * aria-describedby="error-<n>"` when an error names one of `fields`, else ''. `id` defaults to
   * the first field's name, the id most controls have.
   */
  invalid(fields: string | readonly string[], id?: string): string;
  /** The control the page's error `index` leads to, once the template marked it. */
  errorTarget(index: number): string | undefined;
}

const fieldOf = (error: PageError): unknown =>
  error.data && typeof error.data === 'object' ? (error.data as { field?: unknown }).field : undefined;

/** The helpers of one rendering of a page with `errors`. */
export function fieldErrors(errors: readonly PageError[]): FieldErrors {
  const targets = new Map<number, string>();
  return {
    invalid(fields, id) {
      const names: readonly string[] = typeof fields === 'string' ? [fields] : fields;
      const index = errors.findIndex((error) => names.includes(fieldOf(error) as string));
      if (index < 0) return '';
      const control = id ?? names[0];
      if (!targets.has(index)) targets.set(index, control);
      return ` aria-invalid="true" aria-describedby="error-${index}"`;
    },
    errorTarget: (index) => targets.get(index),
  };
}
