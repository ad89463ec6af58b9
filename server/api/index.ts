export { createApiHandler, isApiPath, type FetchHandler } from './surfaces';
