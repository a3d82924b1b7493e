/** The text /generated/<key> streams (test/loopback-server.ts), rebuilt by the tests that read it back. */
export const GENERATED_LINE = 'data: {"delta":"ünïcødé € 𝄞 — line"}\n\n';

export const generatedText = (repeat: number): string => GENERATED_LINE.repeat(repeat);
