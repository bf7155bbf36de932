import { useEffect, useRef, useState } from 'react';
import { SETUP_LINK_HOURS } from '../rules/admin-users';

export interface Handover {
  /** Whose link it is. */
  name: string;
  email: string | null;
  url: string;
  expiresAt: Date;
  /** A first invitation, or a new link that voided the earlier ones. */
  kind: 'invited' | 'new-link';
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/**
 * A setup link to hand over: read-only, selected and focused as it appears, with a Copy
 * button and the words the admin needs (give it to that person alone, once, before when).
 * Tracker sends no email, so this is the only place the link is ever shown.
 */
export function AdminSetupLink({ handover }: { handover: Handover }) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState('');

  useEffect(() => {
    setCopied('');
    inputRef.current?.focus();
    inputRef.current?.select();
  }, [handover]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(handover.url);
      setCopied('The setup link is copied to the clipboard.');
    } catch {
      inputRef.current?.select();
      setCopied('Copying did not work here: the link is selected, copy it with the keyboard.');
    }
  };

  const who = handover.email ? `${handover.name} (${handover.email})` : handover.name;
  return (
    <section className="card admin-handover" aria-labelledby="setup-link-heading">
      <h2 id="setup-link-heading">
        {handover.kind === 'invited' ? `${handover.name} is invited: their setup link` : `New setup link for ${handover.name}`}
      </h2>
      <div className="field">
        <label htmlFor="setup-link">Setup link</label>
        <div className="copy-row">
          <input id="setup-link" ref={inputRef} type="text" readOnly value={handover.url} aria-describedby="setup-link-help" spellCheck={false} />
          <button type="button" onClick={copy}>
            Copy
          </button>
        </div>
        <div id="setup-link-help" className="help">
          <p>
            Give this link to {who} yourself, for instance in a chat: Tracker sends no email. With it they set their password and are signed in.
          </p>
          <p>
            It works once, until {dateFormat.format(handover.expiresAt)} ({SETUP_LINK_HOURS} hours from now). Whoever opens it can sign in as {handover.name}, so give it to
            them alone. {handover.kind === 'new-link' ? 'Their earlier links no longer work.' : 'Making a new link voids this one.'}
          </p>
        </div>
      </div>
      <p className="status" role="status">
        {copied}
      </p>
    </section>
  );
}
