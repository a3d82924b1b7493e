/** The platform layer: projects, identity, users, secret keys, mail templates, newsletters. */
export * from './claims';
export * from './crypto';
export * from './identity';
export * from './mail-templates';
export * from './newsletter-groups';
export * from './newsletters';
export * from './projects';
export * from './resources';
export * from './schemas';
export * from './secrets';
export type * from './types';
export * from './users';
export * from './validation';
