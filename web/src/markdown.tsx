// A small Markdown renderer for model output that builds Preact elements, never HTML strings: text
// always lands in text nodes, so `<img onerror=…>` in a reply shows as those characters. Links keep
// only http(s)/mailto targets, and images become links (an image URL in model output could leak the
// conversation to a third party the moment it loads).
import type { ComponentChildren, JSX } from 'preact';

type Child = JSX.Element | string;

const SAFE_URL = /^(https?:|mailto:)/i;

export function safeUrl(url: string): string | null {
  const trimmed = url.trim();
  return SAFE_URL.test(trimmed) ? trimmed : null;
}

function link(href: string, children: ComponentChildren, key: number): JSX.Element {
  return (
    <a key={key} href={href} target="_blank" rel="noopener noreferrer nofollow">
      {children}
    </a>
  );
}

// Spans are bounded (a run of unmatched `*` in a long reply must not make every render quadratic).
const INLINE_RULES: [RegExp, (m: RegExpExecArray, key: number) => Child][] = [
  [/^(`+)([^`][\s\S]{0,2000}?)\1(?!`)/, (m, k) => <code key={k}>{m[2]}</code>],
  [/^\\([\\`*_{}[\]()#+\-.!~|>])/, (m) => m[1]],
  [
    /^!\[([^\]\n]*)\]\(\s*<?([^\s<>()]+)>?(?:\s+"[^"\n]*")?\s*\)/,
    (m, k) => {
      const href = safeUrl(m[2]);
      const label = `image: ${m[1] || m[2]}`;
      return href ? link(href, label, k) : label;
    },
  ],
  [
    /^\[([^\]\n]+)\]\(\s*<?([^\s<>()]+)>?(?:\s+"[^"\n]*")?\s*\)/,
    (m, k) => {
      const href = safeUrl(m[2]);
      return href ? link(href, inline(m[1]), k) : m[0];
    },
  ],
  [/^<((?:https?:\/\/|mailto:)[^\s<>]+)>/i, (m, k) => link(m[1], m[1], k)],
  [/^(?:https?:\/\/)[^\s<]*[^\s<.,:;"')\]!?*_~]/i, (m, k) => link(m[0], m[0], k)],
  [/^\*\*(?=\S)([\s\S]{0,1000}?\S)\*\*/, (m, k) => <strong key={k}>{inline(m[1])}</strong>],
  [/^__(?=\S)([\s\S]{0,1000}?\S)__(?!\w)/, (m, k) => <strong key={k}>{inline(m[1])}</strong>],
  [/^\*(?=[^\s*])([\s\S]{0,1000}?[^\s*])\*(?!\*)/, (m, k) => <em key={k}>{inline(m[1])}</em>],
  [/^_(?=[^\s_])([\s\S]{0,1000}?[^\s_])_(?!\w)/, (m, k) => <em key={k}>{inline(m[1])}</em>],
  [/^~~(?=\S)([\s\S]{0,1000}?\S)~~/, (m, k) => <del key={k}>{inline(m[1])}</del>],
  [/^\n/, (_m, k) => <br key={k} />],
];

// Where an inline rule may start; everything else is plain text.
const SPECIAL = /[`\\![<*_~\nh]/;

/** Inline Markdown (code, links, emphasis, line breaks) as Preact children. */
export function inline(text: string): Child[] {
  const out: Child[] = [];
  let plain = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    let matched = false;
    if (SPECIAL.test(c)) {
      // `_` and `h` (bare URLs) only start a rule at a word boundary.
      const boundary = i === 0 || !/\w/.test(text[i - 1]);
      if ((c !== '_' && c !== 'h') || boundary) {
        const rest = text.slice(i);
        for (const [rule, make] of INLINE_RULES) {
          const m = rule.exec(rest);
          if (!m) continue;
          if (plain) out.push(plain);
          plain = '';
          out.push(make(m, out.length));
          i += m[0].length;
          matched = true;
          break;
        }
      }
    }
    if (!matched) {
      plain += c;
      i++;
    }
  }
  if (plain) out.push(plain);
  return out;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}> ?/;
const ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])\s+(.*)$/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

function startsBlock(line: string): boolean {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || ITEM.test(line);
}

function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => c.trim());
}

/** Block Markdown: paragraphs, headings, fenced code, quotes, lists, tables, rules. */
export function blocks(source: string): JSX.Element[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const out: JSX.Element[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const key = out.length;
    if (!line.trim()) {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i].trimStart().startsWith(fence[1])) body.push(lines[i++]);
      i++; // the closing fence (absent while the reply is still streaming)
      out.push(
        <pre key={key} data-lang={fence[2] || undefined}>
          <code>{body.join('\n')}</code>
        </pre>,
      );
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const Tag = `h${Math.min(heading[1].length + 2, 6)}` as 'h3';
      out.push(<Tag key={key}>{inline(heading[2])}</Tag>);
      i++;
      continue;
    }
    if (RULE.test(line)) {
      out.push(<hr key={key} />);
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i])) body.push(lines[i++].replace(QUOTE, ''));
      out.push(<blockquote key={key}>{blocks(body.join('\n'))}</blockquote>);
      continue;
    }
    const item = ITEM.exec(line);
    if (item) {
      const ordered = /\d/.test(item[2]);
      const items: string[][] = [];
      while (i < lines.length) {
        const m = ITEM.exec(lines[i]);
        if (m && /\d/.test(m[2]) === ordered) {
          items.push([m[3]]);
        } else if (lines[i].trim() && /^\s+/.test(lines[i]) && items.length) {
          items[items.length - 1].push(lines[i].trim()); // continuation of the item
        } else break;
        i++;
      }
      const children = items.map((body, k) => <li key={k}>{inline(body.join('\n'))}</li>);
      out.push(
        ordered ? (
          <ol key={key} start={Number.parseInt(item[2], 10)}>
            {children}
          </ol>
        ) : (
          <ul key={key}>{children}</ul>
        ),
      );
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && TABLE_SEPARATOR.test(lines[i + 1])) {
      const head = cells(line);
      i += 2;
      const rows: string[][] = [];
      while (i < lines.length && lines[i].includes('|') && lines[i].trim()) rows.push(cells(lines[i++]));
      out.push(
        <div key={key} class="table-wrap">
          <table>
            <thead>
              <tr>
                {head.map((c, k) => (
                  <th key={k}>{inline(c)}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row, r) => (
                <tr key={r}>
                  {head.map((_c, k) => (
                    <td key={k}>{inline(row[k] ?? '')}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>,
      );
      continue;
    }
    const para: string[] = [line];
    i++;
    while (i < lines.length && lines[i].trim() && !startsBlock(lines[i])) para.push(lines[i++]);
    out.push(<p key={key}>{inline(para.join('\n'))}</p>);
  }
  return out;
}

export function Markdown({ text }: { text: string }): JSX.Element {
  return <div class="md">{blocks(text)}</div>;
}
