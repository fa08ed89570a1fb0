/** The event-type catalog: catalog.ts (add, show, list, update), validation.ts (at emit and subscription). */
export {
  createEventType,
  showEventType,
  listEventTypes,
  updateEventType,
  eventTypeNotFound,
  type EventType,
  type EventTypeInput,
} from './catalog.ts';
export { checkEventData, checkSubscriptions, forgetEventType } from './validation.ts';
