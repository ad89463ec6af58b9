import { releaseLogoutClaims, runBackchannelLogoutsOnce, type LogoutDeliveryDeps } from '../oauth/backchannel-logout';
import type { DeliveryRound } from '../webhooks/worker';

/** What the webhook worker's loop delivers besides webhooks: the OpenID Provider's back-channel logouts. */
export const deliveryRounds = (deps: LogoutDeliveryDeps): DeliveryRound[] => {
  const held = new Set<string>();
  return [
    {
      name: 'back-channel logout',
      run: (stopping) => runBackchannelLogoutsOnce(deps, { stopping, held }),
      release: async () => {
        const ids = [...held];
        await releaseLogoutClaims(deps, ids);
        return ids.length;
      },
    },
  ];
};
