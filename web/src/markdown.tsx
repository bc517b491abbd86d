// Model output as Markdown: `marked`'s lexer (GFM: tables, task lists, nested lists, strikethrough)
// turns the text into tokens, and this module turns the tokens into Preact elements. No HTML string
// is ever made from model text or parsed (math aside: MathML temml builds from TeX, see MathSource):
// raw HTML in a reply is shown as its characters, every piece of model text lands in a text node. Links keep only http(s)/mailto targets, and images become links (an image
// URL in model output could leak the conversation to a third party the moment it loads).
import { Lexer, type Token, type Tokens } from 'marked';
import temml from 'temml';
import type { ComponentChildren, JSX } from 'preact';
import { useMemo } from 'preact/hooks';
import { CodeBlock } from './code';
import { completePartial } from './partial';

const SAFE_URL = /^(https?:|mailto:)/i;

export function safeUrl(url: string): string | null {
  const trimmed = url.trim();
  return SAFE_URL.test(trimmed) ? trimmed : null;
}

function link(href: string, children: ComponentChildren, key: number, title?: string | null): JSX.Element {
  return (
    <a key={key} href={href} title={title ?? undefined} target="_blank" rel="noopener noreferrer nofollow">
      {children}
    </a>
  );
}

/** Inline tokens (text, emphasis, code spans, links, breaks) as Preact children. */
function inline(tokens: Token[] | undefined): ComponentChildren[] {
  if (!tokens) return [];
  return tokens.map((token, key) => inlineToken(token, key));
}

function inlineToken(token: Token, key: number): ComponentChildren {
  switch (token.type) {
    case 'text': {
      const t = token as Tokens.Text;
      return t.tokens ? inline(t.tokens) : t.text;
    }
    case 'escape':
      return (token as Tokens.Escape).text;
    case 'strong':
      return <strong key={key}>{inline((token as Tokens.Strong).tokens)}</strong>;
    case 'em':
      return <em key={key}>{inline((token as Tokens.Em).tokens)}</em>;
    case 'del':
      return <del key={key}>{inline((token as Tokens.Del).tokens)}</del>;
    case 'codespan':
      return <code key={key}>{(token as Tokens.Codespan).text}</code>;
    case 'br':
      return <br key={key} />;
    case 'link': {
      const t = token as Tokens.Link;
      const href = safeUrl(t.href);
      return href ? link(href, inline(t.tokens), key, t.title) : t.raw; // e.g. javascript: stays text
    }
    case 'image': {
      const t = token as Tokens.Image;
      const href = safeUrl(t.href);
      const label = `image: ${t.text || t.href}`;
      return href ? link(href, label, key, t.title) : label;
    }
    case 'checkbox':
      return checkbox((token as Tokens.Checkbox).checked, key);
    case 'math':
      return <MathSource key={key} tex={(token as MathToken).text} display={false} />;
    default:
      // `html` and anything unknown: the characters as written, never markup.
      return token.raw;
  }
}

function checkbox(checked: boolean, key: number): JSX.Element {
  return <input key={key} type="checkbox" checked={checked} disabled aria-label={checked ? 'done' : 'not done'} />;
}

/** TeX as MathML, which the browser lays out itself (no fonts or CSS engine bundled). temml makes
 * it from the TeX, escaping the text it holds; with `trust` off the commands that could carry markup
 * or links (`\href`, `\url`, `\html…`) are refused, so this is the one place a made string is used.
 * TeX it cannot read (or half-written, while streaming) stays as its source. */
function MathSource({ tex, display }: { tex: string; display: boolean }): JSX.Element {
  const mathml = useMemo(() => {
    try {
      return temml.renderToString(tex, { displayMode: display, throwOnError: true, trust: false, annotate: true });
    } catch {
      return null;
    }
  }, [tex, display]);
  if (mathml === null) {
    return display ? (
      <pre class="math display" aria-label="math">
        <code>{tex}</code>
      </pre>
    ) : (
      <code class="math">{tex}</code>
    );
  }
  const Tag = display ? 'div' : 'span';
  return <Tag class={display ? 'math display' : 'math'} dangerouslySetInnerHTML={{ __html: mathml }} />;
}

interface MathToken {
  type: 'math';
  raw: string;
  text: string;
  display: boolean;
}

function block(token: Token, key: number): ComponentChildren {
  switch (token.type) {
    case 'space':
    case 'def':
      return null;
    case 'paragraph':
      return <p key={key}>{inline((token as Tokens.Paragraph).tokens)}</p>;
    case 'text': {
      // A tight list item's text: inline content, no paragraph around it.
      const t = token as Tokens.Text;
      return t.tokens ? inline(t.tokens) : t.text;
    }
    case 'heading': {
      const t = token as Tokens.Heading;
      const Tag = `h${Math.min(t.depth + 2, 6)}` as 'h3';
      return <Tag key={key}>{inline(t.tokens)}</Tag>;
    }
    case 'hr':
      return <hr key={key} />;
    case 'code': {
      const t = token as Tokens.Code;
      return <CodeBlock key={key} code={t.text} lang={(t.lang ?? '').split(/\s/)[0]} />;
    }
    case 'blockquote':
      return <blockquote key={key}>{blocks((token as Tokens.Blockquote).tokens)}</blockquote>;
    case 'list': {
      const t = token as Tokens.List;
      const items = t.items.map((item, k) => (
        <li key={k} class={item.task ? 'task-item' : undefined}>
          {blocks(item.tokens)}
        </li>
      ));
      if (!t.ordered) return <ul key={key} class={t.items.some((i) => i.task) ? 'task-list' : undefined}>{items}</ul>;
      return (
        <ol key={key} start={typeof t.start === 'number' && t.start !== 1 ? t.start : undefined}>
          {items}
        </ol>
      );
    }
    case 'checkbox':
      return checkbox((token as Tokens.Checkbox).checked, key);
    case 'table': {
      const t = token as Tokens.Table;
      const align = (i: number) => t.align[i] ?? undefined;
      return (
        <div key={key} class="table-wrap">
          <table>
            <thead>
              <tr>
                {t.header.map((cell, k) => (
                  <th key={k} style={align(k) ? { textAlign: align(k) } : undefined}>
                    {inline(cell.tokens)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {t.rows.map((row, r) => (
                <tr key={r}>
                  {row.map((cell, k) => (
                    <td key={k} style={align(k) ? { textAlign: align(k) } : undefined}>
                      {inline(cell.tokens)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    }
    case 'math':
      return <MathSource key={key} tex={(token as MathToken).text} display />;
    default:
      // Block `html` and anything unknown: a paragraph of the characters as written.
      return token.raw.trim() ? <p key={key}>{token.raw.trim()}</p> : null;
  }
}

function blocks(tokens: Token[]): ComponentChildren[] {
  return tokens.map((token, key) => block(token, key));
}

// TeX between `$$ … $$` (a block) or `$ … $` (inline; no space inside the dollars and no digit right
// after the closing one, so "$5 and $10" stays text), as in Pandoc.
const BLOCK_MATH = /^\$\$([\s\S]+?)\$\$[^\S\n]*(?:\n|$)/;
const INLINE_MATH = /^\$(?=\S)((?:\\\$|[^$\n])+?)(?<=\S)\$(?!\d)/;

const OPTIONS = {
  gfm: true,
  breaks: true, // a model's single newline is meant as one
  extensions: {
    block: [
      function (src: string) {
        const m = BLOCK_MATH.exec(src);
        return m ? { type: 'math', raw: m[0], text: m[1].trim(), display: true } : undefined;
      },
    ],
    inline: [
      function (src: string) {
        const m = INLINE_MATH.exec(src);
        return m ? { type: 'math', raw: m[0], text: m[1], display: false } : undefined;
      },
    ],
    startBlock: [(src: string) => src.match(/^\$\$/m)?.index],
    startInline: [(src: string) => src.indexOf('$') >= 0 ? src.indexOf('$') : undefined],
    renderers: {},
    childTokens: {},
  },
};

/** The tokens of `text`; half-finished Markdown (while it streams) is closed first. */
export function tokenize(text: string, streaming = false): Token[] {
  // A fresh lexer per call: an instance keeps the tokens of the texts it lexed before.
  return Lexer.lex(streaming ? completePartial(text) : text, OPTIONS);
}

export function Markdown({ text, streaming = false }: { text: string; streaming?: boolean }): JSX.Element {
  const tokens = useMemo(() => tokenize(text, streaming), [text, streaming]);
  return <div class="md">{blocks(tokens)}</div>;
}
