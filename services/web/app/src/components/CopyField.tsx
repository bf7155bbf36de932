import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Status } from '../ui';

/**
 * A secret to hand over (a setup link, a new token): read-only, focused and selected as it
 * appears, with a Copy button and a status saying whether copying worked. `what` names it
 * in those words; `children` say what to do with it.
 */
export function CopyField({ id, label, value, what, children }: { id: string; label: string; value: string; what: string; children: ReactNode }) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState('');

  useEffect(() => {
    setCopied('');
    inputRef.current?.focus();
    inputRef.current?.select();
  }, [value]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(`The ${what} is copied to the clipboard.`);
    } catch {
      inputRef.current?.select();
      setCopied(`Copying did not work here: the ${what} is selected, copy it with the keyboard.`);
    }
  };

  return (
    <>
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <div className="copy-row">
          <input id={id} ref={inputRef} type="text" readOnly value={value} aria-describedby={`${id}-help`} spellCheck={false} />
          <button type="button" onClick={copy}>
            Copy
          </button>
        </div>
        <div id={`${id}-help`} className="help">
          {children}
        </div>
      </div>
      <Status>{copied}</Status>
    </>
  );
}
