import { expect, screenshot, test } from './fixtures';
import { writeTrace } from './trace-writer';

const SCRIPT = '<script>window.__pwned = "script"; alert("script")</script>';
const IMG = '<img src=x onerror="window.__pwned = \'img\'; alert(\'img\')">';
const LINK = '<a href="javascript:alert(\'link\')">click me</a> javascript:alert(1)';
const BIDI = 'access \u202Eeulav\u202C granted\u2066 isolate\u2069 zero\u200Bwidth';
const STYLE = '<style>body{display:none}</style><iframe src="https://example.com"></iframe>';

test('a hostile trace renders as inert text: no script runs, no request leaves, controls are shown', async ({ app, tb }) => {
  const dialogs: string[] = [];
  app.on('dialog', async (d) => {
    dialogs.push(d.message());
    await d.dismiss();
  });
  const { runId } = writeTrace(tb.inbox, {
    pipeline: `hostile ${SCRIPT}`,
    input: { question: IMG },
    output: LINK,
    status: 'error',
    verdict: { pass: false, detail: SCRIPT },
    steps: [
      {
        id: 'h1',
        parent: null,
        name: `step ${IMG}`,
        type: 'tool',
        input: { html: SCRIPT, link: LINK, style: STYLE },
        output: BIDI,
        metadata: { note: IMG },
      },
      {
        id: 'h2',
        parent: 'h1',
        name: `bidi ${BIDI}`,
        type: 'llm',
        input: BIDI,
        error: { type: '<b>Boom</b>', message: `${IMG} ${SCRIPT}`, stack: `at ${LINK}\n  at ${BIDI}` },
      },
    ],
  });
  const row = app.locator(`[data-run-id="${runId}"]`);
  await expect(row).toBeVisible();
  await expect(row).toContainText(SCRIPT);
  await row.click();

  await app.locator('.step-row[data-step-id="h1"]').click();
  const panel = app.getByTestId('step-panel');
  await expect(panel.getByTestId('step-input')).toContainText(SCRIPT);
  await expect(panel.getByTestId('step-input')).toContainText('javascript:alert');
  await expect(panel.getByTestId('step-output')).toContainText('U+202E');
  await expect(panel.getByTestId('step-output')).toContainText('U+200B');
  await expect(panel.getByTestId('step-metadata')).toContainText(IMG);

  await app.locator('.step-row[data-step-id="h2"]').click();
  await expect(panel.getByTestId('step-error')).toContainText('<b>Boom</b>');
  await expect(panel.getByTestId('step-error')).toContainText(IMG);
  await screenshot(app, 'hostile-trace');

  // Nothing from the trace became markup.
  await expect(app.locator('#root script, #root img, #root iframe, #root style, #root b, #root a[href^="javascript"]')).toHaveCount(0);
  expect(await app.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
  // Raw bidi characters never reach the page unescaped in the step panel.
  const panelText = await panel.innerText();
  expect(panelText).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B]/);
  expect(dialogs).toEqual([]);
});
