// @simplewebauthn/server's certificate code (@peculiar/x509 2, through tsyringe) needs a Reflect
// metadata polyfill loaded before it; every passkey module takes the library from here.
import 'reflect-metadata';

export {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
