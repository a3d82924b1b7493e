import type { BodyRules } from '../bodies';
import { invalidParameter } from '../case';

/** How the operator and owner-resource routes refuse a body: INVALID_PARAMETER with detail.field (src/platform/validation.ts). */
export const PLATFORM_BODY: BodyRules = {
  notAnObject: invalidParameter('body', true),
  unknownField: (field) => ({ ...invalidParameter(field, true), message: `Unknown field "${field}".` }),
};
