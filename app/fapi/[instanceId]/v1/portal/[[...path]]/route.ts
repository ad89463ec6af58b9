import { apiRouteHandlers } from '@/server/api/next';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';
export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = apiRouteHandlers;
