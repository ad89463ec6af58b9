import { endpoint } from '../../../http/endpoint';
import { lightListSchema } from '../../../http/pagination';
import { listRoles } from '../../../organizations/roles';
import { lightQuery, roleSchema } from '../../../organizations/schemas';
import type { OrgMemberAuth } from '../authenticate';
import { meQuery } from '../users';

export const organizationRoles = {
  /**
   * Organization reads Clerk's components make that Latchkey's own FAPI has no route for. The
   * route table guards them like the organization's other routes (a member whose role holds
   * the permission); the Clerk dialect (dialect.ts) pages and shapes their lists.
   */
  /** The roles a member can be given, for the role pickers of Clerk's invitation and member screens. */
  list: endpoint<OrgMemberAuth, never, { limit: number; starting_after?: string }>({
    summary: 'The roles a member of this organization can hold (the instance’s roles)',
    query: meQuery.extend(lightQuery),
    response: lightListSchema(roleSchema),
    handle: ({ deps, auth, query }) => listRoles(deps, auth.instance.id, query),
  }),
};
