import { elementRefsFor } from '@/core/page/element-refs';

// Injected into a tab's MAIN world by the tabs plugin when a reading asks for element references:
// it makes sure the window has the element-reference registry (shared with every page-side script
// of the extension, so references match those page tools give and take); the background then
// asks it for the elements to list.
export default defineUnlistedScript(() => {
  elementRefsFor(window);
});
