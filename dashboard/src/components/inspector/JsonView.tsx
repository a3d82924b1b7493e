/** JSON shown syntax-highlighted: each token a span holding text (logic/json-highlight.ts), never HTML of the data. */
import { jsonTokens, prettyJson } from '../../logic/json-highlight';

export function JsonView({ value, class: className }: { value: unknown; class?: string }) {
  const tokens = jsonTokens(prettyJson(value));
  return (
    <pre class={`json ${className ?? ''}`.trim()}>
      {tokens.map((token, i) =>
        token.kind === 'space' || token.kind === 'plain' ? (
          token.text
        ) : (
          <span key={i} class={`j-${token.kind}`}>
            {token.text}
          </span>
        ),
      )}
    </pre>
  );
}
