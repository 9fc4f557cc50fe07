// A minimal Angular app, written without decorators syntax so esbuild bundles it as it is; run in
// JIT mode (the compiler is bundled) and in development mode (esbuild keeps `ngDevMode`), which is
// when Angular registers its own `devtoolstooldiscovery` tools (angular:di_graph, angular:signal_graph).
import '@angular/compiler';
import { Component, Injectable, computed, inject, signal } from '@angular/core';
import { bootstrapApplication } from '@angular/platform-browser';

class CounterStore {
  count = signal(2);
  doubled = computed(() => this.count() * 2);
  increment() {
    this.count.update((n) => n + 1);
  }
}
Injectable({ providedIn: 'root' })(CounterStore);

class CounterCard {
  store = inject(CounterStore);
}
Component({
  selector: 'counter-card',
  template: '<p class="count">Count: {{ store.count() }}, doubled: {{ store.doubled() }}</p><button type="button" (click)="store.increment()">Add one</button>',
})(CounterCard);

class AppRoot {
  title = signal('Angular counter');
}
Component({
  selector: 'app-root',
  imports: [CounterCard],
  template: '<h1>{{ title() }}</h1><counter-card id="card"></counter-card>',
})(AppRoot);

bootstrapApplication(AppRoot).then(
  () => (window.__angularReady = true),
  (error) => {
    window.__angularError = String(error?.message ?? error);
    console.error(error);
  },
);
