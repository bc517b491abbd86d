// A fenced code block: highlighted by lowlight (highlight.js grammars, output as a syntax tree, never
// an HTML string), with the language named above it and a button that copies the code.
import type { Element, ElementContent, Root } from 'hast';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { createLowlight } from 'lowlight';
import type { ComponentChildren, JSX } from 'preact';
import { useMemo } from 'preact/hooks';
import { CopyButton } from './copy';

const lowlight = createLowlight({ bash, c, cpp, css, diff, go, java, javascript, json, python, rust, sql, typescript, xml, yaml });

// Longer code is shown plain: highlighting it on every streamed chunk would stall the page.
const HIGHLIGHT_LIMIT = 20_000;

function children(nodes: ElementContent[]): ComponentChildren[] {
  return nodes.map((node, key) => {
    if (node.type === 'text') return node.value;
    if (node.type !== 'element') return null;
    const el = node as Element;
    const names = el.properties?.className;
    // Only spans with hljs-* classes come out of lowlight; nothing else is let through.
    const cls = Array.isArray(names) ? names.map(String).filter((n) => n.startsWith('hljs-')).join(' ') : undefined;
    return (
      <span key={key} class={cls || undefined}>
        {children(el.children)}
      </span>
    );
  });
}

function highlighted(code: string, lang: string): ComponentChildren[] | null {
  if (!lang || code.length > HIGHLIGHT_LIMIT || !lowlight.registered(lang)) return null;
  try {
    const tree: Root = lowlight.highlight(lang, code);
    return children(tree.children as ElementContent[]);
  } catch {
    return null; // a grammar failing on odd input: plain text is still right
  }
}

export function CodeBlock({ code, lang }: { code: string; lang: string }): JSX.Element {
  const name = lang.toLowerCase();
  const body = useMemo(() => highlighted(code, name), [code, name]);
  return (
    <div class="code-block">
      <div class="code-head">
        <span class="code-lang">{lang || 'text'}</span>
        <CopyButton text={code} label="Copy code" />
      </div>
      <pre data-lang={lang || undefined}>
        <code class={body ? 'hljs' : undefined}>{body ?? code}</code>
      </pre>
    </div>
  );
}
