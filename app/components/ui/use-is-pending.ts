import { useNavigation, type Fetcher } from "react-router";

/**
 * Whether a form of this page is on its way (docs/decisions/173): the page's navigation,
 * or `fetcher` when given, is submitting; when `intent` is given, the submitted form's
 * `intent` field is that one (or one of those); when `field` is given, that field has that
 * value (a plot's id, a preference); when `formAction` is given, the form posts there.
 * `state: "non-idle"` also counts the loaders that run after the action, until the page
 * has its new data.
 */
export function useIsPending({
  intent,
  field,
  formAction,
  fetcher,
  state = "submitting",
}: {
  intent?: string | readonly string[];
  field?: { name: string; value: string };
  formAction?: string;
  fetcher?: Pick<Fetcher, "state" | "formData" | "formAction">;
  state?: "submitting" | "non-idle";
} = {}): boolean {
  const navigation = useNavigation();
  const source = fetcher ?? navigation;
  if (state === "submitting" ? source.state !== "submitting" : source.state === "idle") return false;
  if (formAction !== undefined && source.formAction !== formAction) return false;
  if (field !== undefined && source.formData?.get(field.name) !== field.value) return false;
  if (intent === undefined) return true;
  const submitted = source.formData?.get("intent");
  return typeof intent === "string" ? submitted === intent : intent.some((one) => submitted === one);
}
