import { redirect } from "react-router";

/** DECISIONS D4: /home is the landing button's target and means the home page. */
export function loader() {
  return redirect("/");
}
