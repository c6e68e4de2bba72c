/** How the real-clients check reads each client's report into named cases. */
import { describe, expect, it } from 'vitest';
import { junitOutcomes } from './junit.js';
import { tally } from './outcome.js';
import { rubyOutcomes } from './ruby.js';

describe('real-clients reports', () => {
  it('reads pytest JUnit XML: passes, failures with their message, errors and skips', () => {
    const xml = `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="1" failures="1" skipped="1" tests="4">
<testcase classname="test_everyday" name="test_ok" time="0.1" />
<testcase classname="test_everyday" name="test_watch" time="0.2"><failure message="ApiException: (400)&#10;body: &quot;True&quot; &amp; more">traceback</failure></testcase>
<testcase classname="test_everyday" name="test_setup" time="0"><error message="fixture failed">trace</error></testcase>
<testcase classname="test_client" name="test_portforward" time="0"><skipped type="pytest.skip" message="needs a kubelet">skip</skipped></testcase>
</testsuite></testsuites>`;
    expect(junitOutcomes(xml)).toEqual([
      { name: 'test_everyday::test_ok', status: 'passed' },
      { name: 'test_everyday::test_watch', status: 'failed', reason: 'ApiException: (400)\nbody: "True" & more' },
      { name: 'test_everyday::test_setup', status: 'failed', reason: 'fixture failed' },
      { name: 'test_client::test_portforward', status: 'skipped', reason: 'needs a kubelet' },
    ]);
  });

  it('reads the Ruby script case lines and counts them as CI reads a closing line', () => {
    const cases = rubyOutcomes(
      'ok create configmap\nFAIL watch configmaps (legacy path): HTTP 404: Not Found\nnoise\n1 passed, 1 failed\n',
    );
    expect(cases).toEqual([
      { name: 'create configmap', status: 'passed' },
      { name: 'watch configmaps (legacy path)', status: 'failed', reason: 'HTTP 404: Not Found' },
    ]);
    expect(tally(cases)).toBe('1 passed, 1 failed, 0 skipped');
  });
});
