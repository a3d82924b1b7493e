// Markdown files imported as text: wrangler.toml's [[rules]] type "Text" (the vitest pool reads the same rules).
declare module '*.md' {
  const text: string;
  export default text;
}
