// `import x from 'path?text'`: the file's content as a string (scripts/build.mjs, loader `text`).
declare module '*?text' {
  const content: string;
  export default content;
}
