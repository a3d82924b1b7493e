/**
 * The Destinations matcher table (src/outbound/destination-cases.ts) through forwarding: every refused row is
 * refused at dispatch before anything is sent; every allowed row is allowed by a dry run's verdicts (the
 * hosts are examples, so allowed rows are never sent).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { urlRefusal } from '../../schemas/forward-rules';
import { DESTINATION_CASES } from '../../src/outbound/destination-cases';
import { destinationTextProblem } from '../../src/outbound/destinations';
import { createProject, putSecret, type TestProject } from '../helpers/api';
import { forward } from './support';

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
});

/** Rows whose Destinations an owner can store (the others test the matcher on text no key holds). */
const storable = DESTINATION_CASES.filter((row) => row.destinations.every((text) => destinationTextProblem(text) === undefined));
/** A url with a user name or password cannot be built into a request, key or no key. */
const carriesCredentials = (url: string) => URL.canParse(url) && (new URL(url).username !== '' || new URL(url).password !== '');

const usingRowKey = (index: number, url: string) => ({ url, secretName: `row-${index}`, headers: { authorization: 'Bearer $CLIENT_SECRET' } });

describe('forwarding and the Destinations matcher table', () => {
  it('every refused row is refused at dispatch: as an invalid url, or with the destination refusal', async () => {
    const refused = storable.filter((row) => row.verdict !== 'allowed' && row.destinations.length > 0);
    expect(refused.length).toBeGreaterThan(50);
    const outcomes: [string, unknown, unknown][] = [];
    for (const [index, row] of refused.entries()) {
      await putSecret(project, `row-${index}`, 'sk_row_value', { destinations: row.destinations });
      const res = await forward(project, usingRowKey(index, row.url));
      const expected = urlRefusal(row.url)
        ? { status: 400, code: 'INVALID_PARAMETER', field: 'url' }
        : { status: 400, code: 'INVALID_REQUEST', message: 'Destination is not allowed for this client secret.' };
      const actual = {
        status: res.status,
        code: res.json.code,
        ...('field' in expected ? { field: String(res.json.message).split(':')[0] } : { message: res.json.message }),
      };
      outcomes.push([`${row.rule}: ${row.url}`, actual, expected]);
    }
    for (const [rule, actual, expected] of outcomes) expect(actual, rule).toEqual(expected);
  }, 120_000);

  it("every allowed row is allowed by a dry run's destination verdict, and nothing is sent", async () => {
    const allowed = storable.filter((row) => row.verdict === 'allowed' && !urlRefusal(row.url) && !carriesCredentials(row.url));
    expect(allowed.length).toBeGreaterThan(30);
    const outcomes: [string, unknown][] = [];
    for (const [index, row] of allowed.entries()) {
      await putSecret(project, `row-${index}`, 'sk_row_value', { destinations: row.destinations });
      const res = await forward(project, { ...usingRowKey(index, row.url), check: true });
      outcomes.push([`${row.rule}: ${row.url}`, { status: res.status, check: res.json.check, verdicts: res.json.verdicts }]);
    }
    for (const [rule, outcome] of outcomes) {
      expect(outcome, rule).toEqual({ status: 200, check: true, verdicts: { secret: 'allowed', destination: 'allowed', limits: 'allowed' } });
    }
  }, 120_000);
});
