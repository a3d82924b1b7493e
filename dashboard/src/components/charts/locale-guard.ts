/**
 * uPlot formats numbers with `new Intl.NumberFormat(navigator.language)` when its module loads. A
 * browser may report a tag Intl refuses (Chromium under the C locale reports `en-US@posix`), which would
 * stop the whole dashboard's bundle from loading; in that case only, the page's language reads as the
 * tag without its POSIX suffix (else en-US). Imported before uplot, so it runs first.
 */
const validTag = (tag: string) => {
  try {
    return Intl.NumberFormat.supportedLocalesOf([tag]).length >= 0;
  } catch {
    return false;
  }
};

if (typeof navigator !== 'undefined' && !validTag(navigator.language)) {
  const trimmed = navigator.language.split('@')[0];
  Object.defineProperty(navigator, 'language', { value: validTag(trimmed) ? trimmed : 'en-US', configurable: true });
}
