import { SETUP_LINK_HOURS } from '../rules/admin-users';
import { formatDateTime } from '../ui';
import { CopyField } from './CopyField';

export interface Handover {
  /** Whose link it is. */
  name: string;
  email: string | null;
  url: string;
  expiresAt: Date;
  /** A first invitation, or a new link that voided the earlier ones. */
  kind: 'invited' | 'new-link';
}

/**
 * A setup link to hand over: read-only, selected and focused as it appears, with a Copy
 * button and the words the admin needs (give it to that person alone, once, before when).
 * Tracker sends no email, so this is the only place the link is ever shown.
 */
export function AdminSetupLink({ handover }: { handover: Handover }) {
  const who = handover.email ? `${handover.name} (${handover.email})` : handover.name;
  return (
    <section className="card admin-handover" aria-labelledby="setup-link-heading">
      <h2 id="setup-link-heading">
        {handover.kind === 'invited' ? `${handover.name} is invited: their setup link` : `New setup link for ${handover.name}`}
      </h2>
      <CopyField id="setup-link" label="Setup link" value={handover.url} what="setup link">
        <p>
          Give this link to {who} yourself, for instance in a chat: Tracker sends no email. With it they set their password and are signed in.
        </p>
        <p>
          It works once, until {formatDateTime(handover.expiresAt)} ({SETUP_LINK_HOURS} hours from now). Whoever opens it can sign in as {handover.name}, so give it to
          them alone. {handover.kind === 'new-link' ? 'Their earlier links no longer work.' : 'Making a new link voids this one.'}
        </p>
      </CopyField>
    </section>
  );
}
