import { format } from "date-fns";

export default function Home() {
  return <main className="p-8">Built {format(new Date(0), "yyyy-MM-dd")}</main>;
}
