// "Alisio: Create or update AGENTS.md" (spec/instructions.md §9), the pure part: the message
// shown after the diff. The command itself is cmd/initAgentsMd.ts; the server writes atomically
// and only the bytes that were shown (sha256).
import type { InitProposal } from './lsp_ext';

export type { InitProposal };

/** The message shown after the diff (pure, tested). */
export function confirmMessage(p: InitProposal): string {
  if (!p.changed) return 'Alisio: AGENTS.md is up to date; nothing to write.';
  return p.exists
    ? 'Alisio: update the project facts section of AGENTS.md as shown? Nothing outside its markers changes.'
    : 'Alisio: create AGENTS.md as shown?';
}
