/**
 * What this SCIM service provider supports, as RFC 7643 §5–§7 describe it:
 * ServiceProviderConfig, ResourceTypes and Schemas list exactly the attributes the Users
 * and Groups endpoints read, store, filter on and return.
 */
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const SPC_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

/** Page size of list answers: `count` is clamped to it. */
export const MAX_RESULTS = 200;

type AttrType = 'string' | 'boolean' | 'complex' | 'dateTime' | 'reference';
interface AttrDef {
  name: string;
  type: AttrType;
  multiValued: boolean;
  description: string;
  required: boolean;
  caseExact: boolean;
  mutability: 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly';
  returned: 'always' | 'default' | 'never' | 'request';
  uniqueness: 'none' | 'server' | 'global';
  subAttributes?: AttrDef[];
  referenceTypes?: string[];
}

const attr = (
  name: string,
  type: AttrType,
  description: string,
  o: Partial<Omit<AttrDef, 'name' | 'type' | 'description'>> = {},
): AttrDef => ({
  name,
  type,
  multiValued: false,
  description,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...o,
});

const USER_ATTRIBUTES: AttrDef[] = [
  attr(
    'userName',
    'string',
    'Any identifier, unique in the organization’s directory case-insensitively. An email address becomes the user’s address; a login (3–64 letters, digits, "_", "." or "-") becomes the username of a user the directory creates, unless another user holds it.',
    { required: true, uniqueness: 'server' },
  ),
  attr('name', 'complex', 'The user’s name.', {
    subAttributes: [attr('givenName', 'string', 'Given name (first_name).'), attr('familyName', 'string', 'Family name (last_name).')],
  }),
  attr('displayName', 'string', 'Name to display, as the directory gives it.'),
  attr('active', 'boolean', 'false suspends the membership and revokes the user’s sessions; true restores it.'),
  attr('emails', 'complex', 'Email addresses, stored and returned as given.', {
    multiValued: true,
    subAttributes: [
      attr('value', 'string', 'The address.'),
      attr('type', 'string', 'work, home or other.'),
      attr('primary', 'boolean', 'The primary address.'),
      attr('display', 'string', 'Display text.'),
    ],
  }),
  attr(
    'phoneNumbers',
    'complex',
    'Phone numbers, returned as given; an E.164 number becomes an unverified number of a user the directory created.',
    {
      multiValued: true,
      subAttributes: [
        attr('value', 'string', 'The number.'),
        attr('type', 'string', 'work, mobile, fax, home or other.'),
        attr('primary', 'boolean', 'The primary number.'),
        attr('display', 'string', 'Display text.'),
      ],
    },
  ),
  attr('addresses', 'complex', 'Physical mailing addresses, stored and returned as given.', {
    multiValued: true,
    subAttributes: [
      attr('formatted', 'string', 'The full address.'),
      attr('streetAddress', 'string', 'Street.'),
      attr('locality', 'string', 'City or locality.'),
      attr('region', 'string', 'State or region.'),
      attr('postalCode', 'string', 'Postal code.'),
      attr('country', 'string', 'Country (ISO 3166-1 alpha-2).'),
      attr('type', 'string', 'work, home or other.'),
      attr('primary', 'boolean', 'The primary address.'),
    ],
  }),
  attr('title', 'string', 'Job title.'),
  attr('preferredLanguage', 'string', 'Preferred language (en-US); the user’s locale follows it when Latchkey supports the language.'),
];

const ENTERPRISE_ATTRIBUTES: AttrDef[] = [
  attr('employeeNumber', 'string', 'Employee number.'),
  attr('department', 'string', 'Department.'),
  attr('manager', 'complex', 'The user’s manager.', {
    subAttributes: [
      attr('value', 'string', 'The manager’s id.'),
      attr('displayName', 'string', 'The manager’s name.', { mutability: 'readOnly' }),
    ],
  }),
];

const GROUP_ATTRIBUTES: AttrDef[] = [
  attr('displayName', 'string', 'The group’s name; unique in the organization’s directory, case-insensitively.', {
    required: true,
    uniqueness: 'server',
  }),
  attr('members', 'complex', 'Users of this directory in the group.', {
    multiValued: true,
    subAttributes: [
      attr('value', 'string', 'The member’s id.', { mutability: 'immutable', caseExact: true }),
      attr('display', 'string', 'The member’s userName.', { mutability: 'readOnly' }),
      attr('type', 'string', 'Always User.', { mutability: 'readOnly' }),
      attr('$ref', 'reference', 'The member’s URI.', { mutability: 'readOnly', referenceTypes: ['User'] }),
    ],
  }),
];

const SCHEMAS = [
  { id: USER_SCHEMA, name: 'User', description: 'A user of the organization', attributes: USER_ATTRIBUTES },
  { id: ENTERPRISE_SCHEMA, name: 'EnterpriseUser', description: 'Enterprise user attributes', attributes: ENTERPRISE_ATTRIBUTES },
  {
    id: GROUP_SCHEMA,
    name: 'Group',
    description: 'A group of the organization; it may map to an organization role',
    attributes: GROUP_ATTRIBUTES,
  },
];

const meta = (base: string, resourceType: string, path: string) => ({ resourceType, location: `${base}/${path}` });

export const schemaResources = (base: string) =>
  SCHEMAS.map((s) => ({ schemas: [SCHEMA_SCHEMA], ...s, meta: meta(base, 'Schema', `Schemas/${s.id}`) }));

export const resourceTypes = (base: string) => [
  {
    schemas: [RESOURCE_TYPE_SCHEMA],
    id: 'User',
    name: 'User',
    endpoint: '/Users',
    description: 'A user of the organization',
    schema: USER_SCHEMA,
    schemaExtensions: [{ schema: ENTERPRISE_SCHEMA, required: false }],
    meta: meta(base, 'ResourceType', 'ResourceTypes/User'),
  },
  {
    schemas: [RESOURCE_TYPE_SCHEMA],
    id: 'Group',
    name: 'Group',
    endpoint: '/Groups',
    description: 'A group of the organization',
    schema: GROUP_SCHEMA,
    schemaExtensions: [],
    meta: meta(base, 'ResourceType', 'ResourceTypes/Group'),
  },
];

export const serviceProviderConfig = (base: string) => ({
  schemas: [SPC_SCHEMA],
  documentationUri: `${base.replace(/\/scim\/v2$/, '')}/#scim-directory-sync`,
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: MAX_RESULTS },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: true },
  authenticationSchemes: [
    {
      type: 'oauthbearertoken',
      name: 'OAuth Bearer Token',
      description: 'The organization’s SCIM token (scim_…) from POST /v1/scim_tokens, as "Authorization: Bearer scim_…".',
      primary: true,
    },
  ],
  meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
});

/** A list answer (RFC 7644 §3.4.2). */
export const listResponse = (resources: unknown[], totalResults: number, startIndex: number) => ({
  schemas: [LIST_SCHEMA],
  totalResults,
  startIndex,
  itemsPerPage: resources.length,
  Resources: resources,
});
