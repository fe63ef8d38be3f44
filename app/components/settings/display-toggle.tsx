import { Form, useNavigation } from "react-router";
import { useIsPending } from "~/components/ui/use-is-pending";

/**
 * One 浏览与显示 switch as its own form: pressing it posts the opposite value, so it works
 * without JavaScript (the page reloads with the new state) and with it (in place).
 */
export function DisplayToggle({
  preference,
  label,
  hint,
  checked,
  confirmAdult = false,
}: {
  preference: "showR18" | "showAi";
  label: string;
  hint: string;
  checked: boolean;
  /** Turning it on needs the 我已年满 18 周岁 box ticked (checked on the server). */
  confirmAdult?: boolean;
}) {
  const navigation = useNavigation();
  const pending = useIsPending({ field: { name: "preference", value: preference }, state: "non-idle" });
  const shown = pending ? navigation.formData?.get("value") === "on" : checked;
  const id = `pref-${preference}`;
  return (
    <Form method="post" action="/settings?tab=display" className="settings-row settings-toggle" preventScrollReset>
      <div className="settings-row-text">
        <span id={`${id}-label`} className="settings-row-label">{label}</span>
        <span className="muted settings-row-hint">{hint}</span>
        {confirmAdult && !checked ? (
          <label className="settings-confirm">
            <input type="checkbox" name="adultConfirmed" value="yes" /> 我已年满 18 周岁
          </label>
        ) : null}
      </div>
      <input type="hidden" name="preference" value={preference} />
      <input type="hidden" name="value" value={checked ? "off" : "on"} />
      <button
        type="submit"
        className={shown ? "switch switch-on" : "switch"}
        role="switch"
        aria-checked={shown}
        aria-labelledby={`${id}-label`}
        disabled={pending}
      >
        <span className="switch-knob" aria-hidden="true" />
        <span className="switch-text">{shown ? "已开启" : "已关闭"}</span>
      </button>
    </Form>
  );
}
