/**
 * What the database role needs, said where it is missing (docs/operations.md "Database
 * privileges"). The service needs no superuser and no extension: `app migrate` needs a role that
 * may create in the database (its owner, or one with CREATE on it that owns a schema first on its
 * search_path), and the processes need to run as the role that owns what it made. graphile-worker's
 * tables have row security on with no policy, so a role that neither owns them nor bypasses row
 * security sees no job and may add none, whatever it was granted.
 */
import type { Queryable } from './connect.ts';

/** Where the privileges are described, for messages. */
export const PRIVILEGES_DOC = 'docs/operations.md "Database privileges"';

/** Whether `error` is PostgreSQL's insufficient_privilege (42501): permission denied, or row security refusing a row. */
export const isPermissionDenied = (error: unknown): boolean => (error as { code?: unknown })?.code === '42501';

/** A role without a privilege a process cannot do without: no restart gives it, so the process ends saying which. */
export class RolePrivilegeError extends Error {
  readonly code = '42501';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RolePrivilegeError';
  }
}

/** `error` (a refused privilege) as a RolePrivilegeError that says what to do, for a process that cannot go on. */
export const privilegeFailure = (error: unknown, what: string): RolePrivilegeError =>
  error instanceof RolePrivilegeError
    ? error
    : new RolePrivilegeError(`${what}: ${(error as Error).message}: ${PROCESS_PRIVILEGES} (${PRIVILEGES_DOC})`, {
        cause: error,
      });

/** The remedy added to a migration that the role was not allowed to run. */
export const MIGRATE_PRIVILEGES =
  'app migrate needs a role that owns the database, or has CREATE on it and owns a schema first on its search_path';

/** The reason readiness gives when the role may not read the service's tables. */
export const PROCESS_PRIVILEGES =
  'run the processes as the role that ran app migrate (it owns the tables), or a member of it';

/**
 * Why this role cannot work graphile-worker's queue, or undefined when it can: it owns the job
 * table (or is a member of its owner), bypasses row security, or is a superuser. Undefined too
 * when the queue schema is missing (the migration check says so).
 */
export async function queueAccessProblem(sql: Queryable): Promise<string | undefined> {
  const [row] = await sql<{ works: boolean; owner: string; role: string }[]>`
    select pg_has_role(c.relowner, 'USAGE') or r.rolbypassrls or r.rolsuper as works,
           pg_get_userbyid(c.relowner) as owner, current_user as role
      from pg_class c, pg_roles r
     where c.oid = to_regclass('graphile_worker._private_jobs') and r.rolname = current_user`;
  if (row === undefined || row.works) return undefined;
  return `the database role ${row.role} does not own the job queue (owned by ${row.owner}), whose row security hides every job from it: ${PROCESS_PRIVILEGES}`;
}
