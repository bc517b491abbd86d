// A button that copies text and says so for a moment.
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API (plain http on another host) or refused: the old way.
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    const done = document.execCommand('copy');
    area.remove();
    return done;
  }
}

export function CopyButton({ text, label = 'Copy', class: cls = 'icon-button' }: { text: string; label?: string; class?: string }): JSX.Element {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <button
      type="button"
      class={cls}
      aria-label={label}
      title={label}
      onClick={() => void copyText(text).then(setCopied)}
    >
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}
