import { useCallback, useEffect, useState, type FormEvent } from 'react';
import type { Schemas } from '@tracker/client';
import { useAuth } from '../auth';
import { ok, type Problem } from '../http';
import { placeProblem, type FormProblems } from '../rules/problems';
import { CopyField } from '../components/CopyField';
import { Alert, Choices, Field, formatDateTime, messageOf, PageHeading, Status, SubmitButton, useCheckedSubmit, useTitle } from '../ui';

const EXPIRY_CHOICES = [
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: '365', label: '365 days' },
  { value: 'never', label: 'No expiry' },
] as const;

type Expiry = (typeof EXPIRY_CHOICES)[number]['value'];

const TOKEN_NAME_MAX = 100;

const when = (iso: string | null, none: string) => (iso ? formatDateTime(iso) : none);

type TokenField = 'name' | 'expiry';

/** A refused token, in words: next to the field refused, else (such as the limit of tokens a person may have) the service's word for the form. */
const createProblems = (problem: Problem): FormProblems<TokenField> =>
  placeProblem(problem, ['name', 'expiry'] as const, {
    fieldWords: { name: `Give the token a name of 1 to ${TOKEN_NAME_MAX} characters.` },
    fieldOfPath: { expires_in_days: 'expiry' },
  });

export function TokensPage() {
  useTitle('Personal tokens');
  const { client } = useAuth();
  const [tokens, setTokens] = useState<Schemas['PersonalToken'][] | null>(null);
  const [listProblem, setListProblem] = useState('');
  const [name, setName] = useState('');
  const [expiry, setExpiry] = useState<Expiry>('90');
  const { formRef, problems, general, busy, submit } = useCheckedSubmit<TokenField>();
  const [created, setCreated] = useState<Schemas['PersonalTokenCreated'] | null>(null);
  const [status, setStatus] = useState('');

  const load = useCallback(async () => {
    try {
      setTokens(ok(await client.GET('/api/v1/tokens')));
      setListProblem('');
    } catch (error) {
      setListProblem(messageOf(error));
    }
  }, [client]);

  useEffect(() => {
    void load();
  }, [load]);

  const create = (event: FormEvent) =>
    submit(event, {
      check: () => (name.trim() ? {} : { name: 'Give the token a name, such as what will use it.' }),
      send: async () => {
        setStatus('');
        const made = ok(await client.POST('/api/v1/tokens', { body: { name: name.trim(), expires_in_days: expiry === 'never' ? null : Number(expiry) } }));
        setCreated(made);
        setName('');
        await load();
      },
      place: createProblems,
    });

  const revoke = async (token: Schemas['PersonalToken']) => {
    setStatus('');
    try {
      ok(await client.DELETE('/api/v1/tokens/{token_id}', { params: { path: { token_id: token.id } } }));
      if (created?.id === token.id) setCreated(null);
      setStatus(`The token “${token.name}” is revoked: it no longer works.`);
      await load();
    } catch (error) {
      setStatus(`The token “${token.name}” could not be revoked: ${messageOf(error)}`);
    }
  };

  const mcpUrl = `${window.location.origin}/mcp`;
  const clientConfig = JSON.stringify({ mcpServers: { tracker: { type: 'http', url: mcpUrl, headers: { Authorization: 'Bearer <your token>' } } } }, null, 2);

  return (
    <>
      <PageHeading>Personal tokens</PageHeading>
      <p className="lead">
        A personal token lets a script, an integration or an AI agent use Tracker as you, with your rights. Make one for each, and revoke it when it is no longer needed.
      </p>

      <section aria-labelledby="new-token-heading" className="card">
        <h2 id="new-token-heading">Make a token</h2>
        <form ref={formRef} className="inline-form" onSubmit={create} noValidate>
          <div className="grow">
            <Field label="Token name" problem={problems.name}>
              {(props) => <input {...props} type="text" maxLength={TOKEN_NAME_MAX} required autoComplete="off" value={name} onChange={(e) => setName(e.target.value)} />}
            </Field>
          </div>
          <div>
            <Field label="Expires" problem={problems.expiry}>
              {(props) => <Choices {...props} choices={EXPIRY_CHOICES} value={expiry} onChoose={setExpiry} />}
            </Field>
          </div>
          <SubmitButton busy={busy}>Create token</SubmitButton>
        </form>
        <Alert>{general}</Alert>

        {created && (
          <div className="secret">
            <CopyField id="new-token" label="New token" value={created.token} what="token">
              “{created.name}”: copy it now and keep it somewhere safe. It is shown only this once.
            </CopyField>
          </div>
        )}
      </section>

      <Status>{status}</Status>

      <section aria-labelledby="tokens-heading">
        <h2 id="tokens-heading">Your tokens</h2>
        <Alert>{listProblem}</Alert>
        {tokens === null && !listProblem && <p>Loading your tokens…</p>}
        {tokens !== null && tokens.length === 0 && <p>You have no personal tokens yet.</p>}
        {tokens !== null && tokens.length > 0 && (
          <table className="data">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.map((token) => (
                <tr key={token.id}>
                  <th scope="row" data-label="Name">
                    {token.name}
                  </th>
                  <td data-label="Prefix">
                    <code>{token.prefix}…</code>
                  </td>
                  <td data-label="Created">{when(token.created_at, '')}</td>
                  <td data-label="Expires">{when(token.expires_at, 'Never')}</td>
                  <td data-label="Last used">{when(token.last_used_at, 'Not yet')}</td>
                  <td className="actions">
                    <button type="button" className="danger" aria-label={`Revoke ${token.name}`} onClick={() => revoke(token)}>
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section aria-labelledby="agent-heading" className="card">
        <h2 id="agent-heading">Connect an AI agent</h2>
        <p>
          Agents use Tracker through its MCP server (Streamable HTTP) at <code className="url">{mcpUrl}</code>, with a personal token of yours: they see and do exactly what you
          may, and revoking the token cuts them off at once.
        </p>
        <p>A client that takes a URL and headers (Claude Code, Cursor, VS Code and others) is configured like this, with your token in place of &lt;your token&gt;:</p>
        <figure>
          <figcaption>Client configuration</figcaption>
          <pre>
            <code>{clientConfig}</code>
          </pre>
        </figure>
        <figure>
          <figcaption>Claude Code, from the command line</figcaption>
          <pre>
            <code>{`claude mcp add --transport http tracker ${mcpUrl} --header "Authorization: Bearer <your token>"`}</code>
          </pre>
        </figure>
      </section>
    </>
  );
}
