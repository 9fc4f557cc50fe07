import { errorText } from '@/core/ui/i18n';
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { ApprovalAnswer, PendingApproval, Permission } from '@/core/approvals/gate';
import { sendMessage } from '@/core/messaging/protocol';
import { subscribe } from '@/core/ui/events';

/**
 * The approval gate as the pages see it: the asks waiting in every conversation (the sidebar
 * shows the open conversation's as cards and the others' as a notice) and the remembered choices
 * (Settings → Privacy → Permissions). The background holds both; this mirrors them.
 */
export const useApprovalsStore = defineStore('approvals', () => {
  const approvals = ref<PendingApproval[]>([]);
  const permissions = ref<Permission[]>([]);
  const error = ref('');
  let unsubscribe: (() => void) | undefined;
  let users = 0;

  async function load(): Promise<void> {
    const [asks, remembered] = await Promise.all([
      sendMessage('listApprovals').catch(() => []),
      sendMessage('listPermissions').catch(() => []),
    ]);
    approvals.value = asks;
    permissions.value = remembered;
  }

  /** Starts mirroring (each component that shows it calls it, and `stop` when it goes). */
  function start(): void {
    if (users++) return;
    unsubscribe = subscribe((event) => {
      if (event.type === 'approval') approvals.value = [...approvals.value.filter((a) => a.id !== event.approval.id), event.approval];
      else if (event.type === 'approval-closed') approvals.value = approvals.value.filter((a) => a.id !== event.id);
      else if (event.type === 'permissions') permissions.value = event.permissions;
    }, () => void load());
    void load();
  }

  function stop(): void {
    if (--users > 0) return;
    users = 0;
    unsubscribe?.();
    unsubscribe = undefined;
  }

  /** Asks whose answer is on its way: a second click (a double click, Allow then Deny) is not sent. */
  const answering = new Set<string>();

  /** Allow once, Always allow (this tool on this site), or Deny: the first answer to an ask counts. */
  async function answer(id: string, value: ApprovalAnswer): Promise<void> {
    if (answering.has(id)) return;
    answering.add(id);
    error.value = '';
    try {
      await sendMessage('answerApproval', { id, answer: value });
      approvals.value = approvals.value.filter((a) => a.id !== id);
    } catch (e) {
      error.value = errorText(e);
    } finally {
      answering.delete(id);
    }
  }

  async function revoke(tool: string, site: string): Promise<void> {
    error.value = '';
    try {
      permissions.value = await sendMessage('revokePermission', { tool, site });
    } catch (e) {
      error.value = errorText(e);
    }
  }

  return { approvals, permissions, error, start, stop, answer, revoke };
});
