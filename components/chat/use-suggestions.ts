import { computed, ref, shallowRef, watch, type Ref } from 'vue';
import { t } from '@/core/ui/i18n';
import { pluginUi, type ComposerSuggestion, type PluginUi } from '@/core/ui/plugins';

/** One plugin's suggestions for what is typed, under its group's name. */
export interface SuggestionGroup {
  id: string;
  label: string;
  items: Array<ComposerSuggestion & { index: number }>;
}

type Source = Pick<PluginUi, 'id' | 'composer'>;

/**
 * The message box's suggestions (`PluginUi.composer`): asked of every plugin that offers some
 * each time the text changes, shown while the box has focus, until Escape (then until the text
 * changes again). The first option is active; `move` goes up and down, `pick` gives its value.
 * A plugin's slow answer that arrives after the text changed again is dropped.
 */
export function useSuggestions(text: Ref<string>, focused: Ref<boolean>, sources: readonly Source[] = pluginUi()) {
  const offering = sources.filter((s) => s.composer);
  const groups = shallowRef<SuggestionGroup[]>([]);
  const active = ref(-1);
  const dismissed = ref(false);
  let asked = 0;

  const count = computed(() => groups.value.reduce((n, g) => n + g.items.length, 0));
  const open = computed(() => focused.value && !dismissed.value && count.value > 0);
  /** The listbox's name: the one group's, else the core's word. */
  const label = computed(() => (groups.value.length === 1 ? groups.value[0]!.label : t('composer.suggestions')));

  async function refresh(value: string): Promise<void> {
    const ticket = ++asked;
    if (!offering.length || !value) {
      groups.value = [];
      active.value = -1;
      return;
    }
    const answers = await Promise.all(
      offering.map(async (s) => {
        try {
          return { source: s, items: (await s.composer!.suggest(value)) ?? [] };
        } catch {
          return { source: s, items: [] as ComposerSuggestion[] };
        }
      }),
    );
    if (ticket !== asked) return;
    let index = 0;
    groups.value = answers
      .filter((a) => Array.isArray(a.items) && a.items.length)
      .map((a) => ({
        id: a.source.id,
        label: a.source.composer!.label?.() ?? t('composer.suggestions'),
        items: a.items.map((item) => ({ ...item, index: index++ })),
      }));
    active.value = index ? 0 : -1;
  }

  watch(
    text,
    (value) => {
      dismissed.value = false;
      void refresh(value);
    },
    { immediate: true },
  );

  function move(delta: number): void {
    const n = count.value;
    if (!n) return;
    active.value = (((active.value + delta) % n) + n) % n;
  }

  /** The value of the option at `index` (the active one when absent), or undefined. */
  function valueAt(index = active.value): string | undefined {
    for (const group of groups.value) {
      const item = group.items.find((i) => i.index === index);
      if (item) return item.value;
    }
    return undefined;
  }

  function dismiss(): void {
    dismissed.value = true;
  }

  return { groups, active, open, label, offers: offering.length > 0, move, valueAt, dismiss };
}
