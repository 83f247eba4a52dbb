// The Audit Sessions view's tree, as plain data (no `vscode` here, so it is unit-tested): one
// node per recent session of the workspace (`alisio/auditSessions`, spec/interfaces.md §4.6),
// newest first per client, its findings as children; a finding about a file opens it.
import type { AuditFinding, AuditSessionsResult } from '../lsp_ext';

export interface AuditNode {
  label: string;
  description?: string;
  tooltip?: string;
  /** A codicon id. */
  icon: string;
  /** The file a click opens (absolute). */
  path?: string;
  children: AuditNode[];
}

const ICONS: Record<AuditFinding['kind'], string> = {
  'older-copy': 'history',
  'not-predicted': 'warning',
  'not-received': 'warning',
  'import-not-expanded': 'warning',
  'reference-unread': 'info',
  'description-shortened': 'info',
  'description-dropped': 'warning',
  'skipped-lines': 'circle-slash',
};

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? '' : 's'}`;
}

/** The tree of an audit result; `relative` shows an absolute path as the user knows it. */
export function auditTree(r: AuditSessionsResult | undefined, relative: (p: string) => string = (p) => p): AuditNode[] {
  if (!r) return [{ label: 'The server has not answered yet', icon: 'loading~spin', children: [] }];
  if (!r.enabled) {
    return [{ label: 'Session audit is off', description: 'alisio.audit.enabled', icon: 'circle-slash', children: [] }];
  }
  const out: AuditNode[] = [];
  if (r.running) out.push({ label: 'Auditing recent sessions…', icon: 'loading~spin', children: [] });
  if (!r.sessions.length && !r.running) {
    out.push({ label: 'No recent Claude Code or Codex session of this workspace', icon: 'info', children: [] });
  }
  for (const s of r.sessions) {
    const children = s.findings.map((f) => {
      const shown = f.path ? f.message.split(f.path).join(relative(f.path)) : f.message;
      return { label: shown, icon: ICONS[f.kind] ?? 'info', path: f.path, tooltip: f.kind, children: [] };
    });
    const found = s.findings.length ? plural(s.findings.length, 'finding') : 'as predicted';
    out.push({
      label: `${s.client} ${s.session.slice(0, 8)}`,
      description: `${plural(s.prompts, 'prompt')} · ${found}`,
      tooltip: [s.file, s.cwd ? `cwd ${s.cwd}` : 'no cwd recorded', s.clientVersion ? `version ${s.clientVersion}` : '',
        `${plural(s.deliveries, 'instruction delivery')}, ${plural(s.requests, 'request')}`].filter(Boolean).join('\n'),
      icon: s.findings.some((f) => ICONS[f.kind] === 'warning') ? 'warning' : s.findings.length ? 'info' : 'pass',
      path: s.file,
      children,
    });
  }
  return out;
}
