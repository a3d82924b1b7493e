/** The form of each action kind (schemas/actions/schema.ts): its exe fields, and whether it has a Then chain and retry. */
import type { ActKind } from '../../../schemas/ticket-types';
import type { FieldKind } from './Field';

export interface ExeField {
  /** Path under exe. */
  key: readonly string[];
  label: string;
  kind: FieldKind;
  options?: readonly (readonly [string, string])[];
  hint?: string;
}

export interface ActionKindForm {
  label: string;
  fields: readonly ExeField[];
  /** exe.actions: the Then chain. */
  then: boolean;
  retry: boolean;
  /** cond: its rows are exe.response. */
  responseRows?: true;
}

const JSON_HINT = 'JSON; references such as ${body[id]} go inside strings.';
const LOOSE_HINT = 'A number, or text such as a reference.';

export const ACTION_KINDS: Record<ActKind, ActionKindForm> = {
  req: {
    label: 'req — send an HTTP request',
    then: true,
    retry: true,
    fields: [
      { key: ['url'], label: 'url', kind: 'text', hint: 'http:// or https://; references allowed after the host.' },
      {
        key: ['method'],
        label: 'method',
        kind: 'select',
        options: [
          ['', '(GET)'],
          ['GET', 'GET'],
          ['POST', 'POST'],
          ['PUT', 'PUT'],
          ['DELETE', 'DELETE'],
        ],
      },
      { key: ['secretName'], label: 'secretName (Secret Key for ${CLIENT_SECRET})', kind: 'text' },
      { key: ['headers'], label: 'headers', kind: 'json', hint: '{ "Name": "value" }' },
      { key: ['data'], label: 'data', kind: 'json', hint: JSON_HINT },
      { key: ['params'], label: 'params (query)', kind: 'json', hint: '{ "name": value }' },
    ],
  },
  pstr: {
    label: 'pstr — write a record',
    then: true,
    retry: true,
    fields: [
      { key: ['table', 'name'], label: 'table name', kind: 'text' },
      { key: ['table', 'access_group'], label: 'table access_group', kind: 'loose', hint: "0..99, 'public', 'authorized', 'admin' or 'private'." },
      { key: ['table', 'subscription'], label: 'table subscription', kind: 'json' },
      { key: ['data'], label: 'data', kind: 'json', hint: JSON_HINT },
      { key: ['unique_id'], label: 'unique_id', kind: 'text' },
      { key: ['record_id'], label: 'record_id', kind: 'text' },
      { key: ['reference'], label: 'reference', kind: 'text' },
      { key: ['user_id'], label: 'user_id', kind: 'text' },
      { key: ['index'], label: 'index', kind: 'json', hint: '{ "name": …, "value": … }' },
      { key: ['tags'], label: 'tags', kind: 'json', hint: '["a", "b"]' },
      { key: ['readonly'], label: 'readonly', kind: 'checkbox' },
      { key: ['source'], label: 'source', kind: 'json' },
    ],
  },
  acsg: {
    label: 'acsg — set an access group',
    then: true,
    retry: true,
    fields: [
      { key: ['group'], label: 'group', kind: 'loose', hint: "1..99, 'admin' or a reference." },
      { key: ['user_id'], label: 'user_id', kind: 'text', hint: 'Empty = the consumer.' },
    ],
  },
  acsr: {
    label: 'acsr — grant access to a record',
    then: true,
    retry: true,
    fields: [
      { key: ['record_id'], label: 'record_id', kind: 'text' },
      { key: ['user_id'], label: 'user_id', kind: 'loose', hint: 'A user id, a reference or a JSON list of them.' },
    ],
  },
  mail: {
    label: 'mail — send one e-mail',
    then: true,
    retry: true,
    fields: [
      { key: ['template'], label: 'template', kind: 'text' },
      { key: ['to'], label: 'to', kind: 'text', hint: 'An address or a reference such as ${user[email]}.' },
      { key: ['placeholders'], label: 'placeholders', kind: 'json', hint: '{ "name": "value" }' },
    ],
  },
  nlsd: {
    label: 'nlsd — send a newsletter',
    then: true,
    retry: true,
    fields: [
      { key: ['group'], label: 'group', kind: 'loose', hint: "'public', 'authorized', 2..99 or a group name." },
      { key: ['newsletter'], label: 'newsletter', kind: 'text' },
    ],
  },
  resp: {
    label: 'resp — answer the caller',
    then: false,
    retry: false,
    fields: [
      { key: ['status'], label: 'status', kind: 'loose', hint: LOOSE_HINT },
      { key: ['body'], label: 'body', kind: 'json', hint: JSON_HINT },
      { key: ['resume'], label: 'resume', kind: 'loose', hint: "'stop' (default), '0m', '10m', '2h', '3d', a time in ms or a reference." },
    ],
  },
  cond: { label: 'cond — check the answer (Then chain only)', then: false, retry: false, fields: [], responseRows: true },
};

export const KIND_OPTIONS = (Object.keys(ACTION_KINDS) as ActKind[]).map((kind) => [kind, ACTION_KINDS[kind].label] as const);
