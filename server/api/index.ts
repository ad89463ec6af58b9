export { createApiHandler, isApiPath, SURFACES, surfaceOf, type FetchHandler } from './surfaces';
